package io.ringbase.kv;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.WriteBatch;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The key-value service of a node alone: a cluster of one, replication factor 1, every request answered by
 * this node's engine. It offers the inline path ({@link #servesPointRequestsInline()} is true): a GET copies
 * the value once, from the memtable slab or the mapped SSTable, and a PUT's value goes from the request's
 * buffer to the WAL and the memtable. Its general path calls the engine on the calling thread, so it
 * {@link #callsMayBlock may block}: call it from a worker. Thread-safe.
 */
public final class LocalKeyValueService implements KeyValueService {

    /** Locks of conditional writes, by key hash: enough that unrelated keys rarely share one. */
    static final int STRIPES = 256;

    /** One read cursor per worker thread, reused by every general-path read (its block buffers stay). */
    private static final ThreadLocal<ReadCursor> CURSOR = ThreadLocal.withInitial(ReadCursor::new);

    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final TimeSource time;
    private final Object[] stripes = new Object[STRIPES];

    /**
     * @param engine the node's engine; the caller keeps ownership
     * @param clock  stamps every write's version
     * @param time   decides whether a value has expired
     */
    public LocalKeyValueService(StorageEngine engine, HybridLogicalClock clock, TimeSource time) {
        this.engine = engine;
        this.clock = clock;
        this.time = time;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    @Override
    public int replicationFactor() {
        return 1;
    }

    @Override
    public boolean servesPointRequestsInline() {
        return true;
    }

    @Override
    public InlineRead tryRead(byte[] key, ReadCursor cursor) throws IOException {
        StorageEngine.TryRead found = engine.tryRead(key, cursor);
        if (found == StorageEngine.TryRead.WOULD_WAIT) {
            return InlineRead.WOULD_WAIT;
        }
        return found == StorageEngine.TryRead.FOUND && cursor.isLive(time.currentTimeMillis())
                ? InlineRead.LIVE
                : InlineRead.MISSING;
    }

    @Override
    public long tryWrite(byte[] key, long expiresAtMs, @Nullable MemorySegment value) throws IOException {
        long version = clock.now();
        return engine.tryApply(key, version, value == null ? Entry.NO_EXPIRY : expiresAtMs, value)
                ? version
                : NOT_WRITTEN;
    }

    @Override
    public void stage(WriteBatch batch, byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
        batch.add(key, clock.now(), value == null ? Entry.NO_EXPIRY : expiresAtMs, value);
    }

    @Override
    public boolean tryApplyStaged(WriteBatch batch) throws IOException {
        return engine.tryApplyAll(batch);
    }

    @Override
    public boolean callsMayBlock(boolean write) {
        return true; // the engine is called on the calling thread: a read may wait for the disk, a write for a flush
    }

    @Override
    public CompletionStage<@Nullable Versioned> get(byte[] key, Quorum quorum) {
        checkQuorum(quorum);
        ReadCursor cursor = CURSOR.get();
        try {
            if (!engine.read(key, cursor) || !cursor.isLive(time.currentTimeMillis())) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.completedFuture(new Versioned(
                    cursor.segment()
                            .asSlice(cursor.bareValueOffset(), cursor.bareValueLength())
                            .toArray(ValueLayout.JAVA_BYTE),
                    cursor.version(),
                    cursor.contentType()));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            cursor.close(); // unpins the memtable or table the value was copied from
        }
    }

    @Override
    public CompletionStage<Long> put(byte[] key, MemorySegment value, long expiresAtMs, Quorum quorum) {
        checkQuorum(quorum);
        // the value goes from the caller's memory to the WAL and the memtable slab, with no copy in between
        return apply(key, expiresAtMs, value);
    }

    @Override
    public CompletionStage<Long> put(
            byte[] key, MemorySegment value, @Nullable String contentType, long expiresAtMs, Quorum quorum) {
        if (contentType == null) {
            return put(key, value, expiresAtMs, quorum);
        }
        checkQuorum(quorum);
        try {
            long version = clock.now();
            engine.apply(Entry.typed(key, version, expiresAtMs, contentType, value));
            return CompletableFuture.completedFuture(version);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Long> delete(byte[] key, Quorum quorum) {
        checkQuorum(quorum);
        return apply(key, Entry.NO_EXPIRY, null);
    }

    private CompletionStage<Long> apply(byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
        try {
            long version = clock.now();
            engine.apply(key, version, expiresAtMs, value);
            return CompletableFuture.completedFuture(version);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Checks and writes under the lock of the key's stripe ({@link #STRIPES} locks by key hash), so that
     * two conditional writes of one key never both pass a check of the same version. Only conditional
     * writes take the lock: the unconditional paths ({@link #put}, the inline path) are unchanged.
     */
    @Override
    public CompletionStage<CasResult> writeIf(
            byte[] key,
            @Nullable MemorySegment value,
            @Nullable String contentType,
            long expiresAtMs,
            Condition condition,
            Quorum quorum) {
        checkQuorum(quorum);
        Object stripe = stripes[Math.floorMod(Arrays.hashCode(key), STRIPES)];
        try {
            synchronized (stripe) {
                Entry current = engine.get(key);
                long now = time.currentTimeMillis();
                if (!condition.holds(current, now)) {
                    return CompletableFuture.completedFuture(CasResult.refused(
                            current != null && current.isLive(now) ? current.version() : CasResult.NO_VALUE));
                }
                if (current != null) {
                    clock.observeStored(current.version()); // the new version must be above the one checked
                }
                long version = clock.now();
                if (value != null && contentType != null) {
                    engine.apply(Entry.typed(key, version, expiresAtMs, contentType, value));
                } else {
                    engine.apply(key, version, value == null ? Entry.NO_EXPIRY : expiresAtMs, value);
                }
                return CompletableFuture.completedFuture(CasResult.applied(version));
            }
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<@Nullable Entry> readEntry(byte[] key, Quorum quorum) {
        checkQuorum(quorum);
        try {
            return CompletableFuture.completedFuture(engine.get(key));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Void> writeVersioned(Entry entry, Quorum quorum) {
        checkQuorum(quorum);
        try {
            engine.apply(entry); // the engine keeps the newest version: an older entry stays invisible
            return CompletableFuture.completedFuture(null);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public EntryBatchSource scan(byte[] start, byte @Nullable [] end, boolean localOnly) throws IOException {
        return new LocalBatchSource(engine.scan(start, end, true));
    }

    @Override
    public @Nullable String notReadyReason() {
        return engine.unwritableReason();
    }

    private static void checkQuorum(Quorum quorum) {
        if (quorum.from() > 1) {
            throw new IllegalArgumentException("from=" + quorum.from() + " is above the replication factor 1");
        }
    }
}
