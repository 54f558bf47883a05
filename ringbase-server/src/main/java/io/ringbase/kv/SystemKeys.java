package io.ringbase.kv;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The system keyspace: keys that start with the byte {@code 0x00} then {@code rb.}, where the node keeps
 * its own replicated data (server-side functions' modules, docs/functions.md). They are ordinary entries
 * to the engine, replication, hints, repair and streaming, so a node that joins gets them like any data;
 * the public API refuses them as keys and range scans never return them. Stateless.
 */
public final class SystemKeys {

    /** The prefix of every system key: {@code 0x00 'r' 'b' '.'}. */
    private static final byte[] PREFIX = {0x00, 'r', 'b', '.'};

    /** The prefix of a stored function's key. */
    private static final byte[] FUNCTION = concat(PREFIX, "fn/".getBytes(StandardCharsets.US_ASCII));

    private SystemKeys() {}

    /** Whether {@code key} is in the system keyspace. */
    public static boolean isSystem(byte[] key) {
        return key.length >= PREFIX.length && Arrays.equals(key, 0, PREFIX.length, PREFIX, 0, PREFIX.length);
    }

    /** The key a function named {@code name} is stored under. */
    public static byte[] function(String name) {
        return concat(FUNCTION, name.getBytes(StandardCharsets.UTF_8));
    }

    /** A source of {@code source}'s entries without the system keys, which it closes. */
    public static EntryBatchSource hidden(EntryBatchSource source) {
        return new HidingSource(source);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Drops system keys; asks again when a whole batch was system keys (a batch is empty only at the end). */
    private record HidingSource(EntryBatchSource source) implements EntryBatchSource {
        @Override
        public java.util.concurrent.CompletableFuture<java.util.List<io.ringbase.storage.Entry>> nextBatch(
                int maxBytes) {
            return source.nextBatch(maxBytes).thenCompose(batch -> {
                if (batch.isEmpty() || batch.stream().noneMatch(e -> isSystem(e.key()))) {
                    return java.util.concurrent.CompletableFuture.completedFuture(batch);
                }
                java.util.List<io.ringbase.storage.Entry> user =
                        batch.stream().filter(e -> !isSystem(e.key())).toList();
                return user.isEmpty()
                        ? nextBatch(maxBytes)
                        : java.util.concurrent.CompletableFuture.completedFuture(user);
            });
        }

        @Override
        public void close() {
            source.close();
        }
    }
}
