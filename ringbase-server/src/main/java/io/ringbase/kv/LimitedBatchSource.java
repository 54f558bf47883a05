package io.ringbase.kv;

import io.ringbase.storage.Entry;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One page of a range: the first {@code limit} entries of another {@link EntryBatchSource} (a node's own
 * scan or a cluster-wide one), and the key the next page starts from once the page is full
 * ({@link #resumeKey()}: the last key of the page followed by a 0x00 byte, the least key after it). A
 * full page does not know whether the range holds more, so the next page may be empty. The same keyset
 * paging as Cassandra's paging state or etcd's {@code limit} with the last key's successor. Follows the
 * source's one-batch-at-a-time contract; closes the source when closed.
 */
public final class LimitedBatchSource implements EntryBatchSource {

    private static final CompletableFuture<List<Entry>> END = CompletableFuture.completedFuture(List.of());

    private final EntryBatchSource source;
    private long remaining;
    private volatile byte @Nullable [] resumeKey; // set once the page is full

    /**
     * @param source the range; owned (closed) by this page
     * @param limit  most entries of the page, at least 1
     * @throws IllegalArgumentException if {@code limit} is below 1
     */
    public LimitedBatchSource(EntryBatchSource source, long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        this.source = source;
        this.remaining = limit;
    }

    @Override
    public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
        if (remaining == 0) {
            return END; // the page is full: the source is not asked again
        }
        return source.nextBatch(maxBytes).thenApply(batch -> {
            List<Entry> page = batch.size() > remaining ? batch.subList(0, (int) remaining) : batch;
            remaining -= page.size();
            if (remaining == 0) {
                byte[] last = page.getLast().key();
                resumeKey = Arrays.copyOf(last, last.length + 1); // last key + 0x00
            }
            return page;
        });
    }

    /**
     * Where the next page starts: {@code null} while the page is not full (or if the range ended before
     * it was), else the last key of the page followed by one 0x00 byte. Read once {@link #nextBatch}
     * has returned the empty batch that ends the page.
     */
    @Override
    public byte @Nullable [] resumeKey() {
        byte[] k = resumeKey;
        return k == null ? null : k.clone();
    }

    @Override
    public void close() {
        source.close();
    }
}
