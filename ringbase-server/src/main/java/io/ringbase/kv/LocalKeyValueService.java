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

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** One read cursor per worker thread, reused by every general-path read (its block buffers stay). */
    private static final ThreadLocal<ReadCursor> CURSOR = ThreadLocal.withInitial(ReadCursor::new);

    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final TimeSource time;

    /**
     * @param engine the node's engine; the caller keeps ownership
     * @param clock  stamps every write's version
     * @param time   decides whether a value has expired
     */
    public LocalKeyValueService(StorageEngine engine, HybridLogicalClock clock, TimeSource time) {
        this.engine = engine;
        this.clock = clock;
        this.time = time;
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
    public boolean tryWrite(byte[] key, long expiresAtMs, @Nullable MemorySegment value) throws IOException {
        return engine.tryApply(key, clock.now(), value == null ? Entry.NO_EXPIRY : expiresAtMs, value);
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
    public CompletionStage<byte[]> get(byte[] key, Quorum quorum) {
        checkQuorum(quorum);
        ReadCursor cursor = CURSOR.get();
        try {
            if (!engine.read(key, cursor) || !cursor.isLive(time.currentTimeMillis())) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.completedFuture(cursor.segment()
                    .asSlice(cursor.valueOffset(), cursor.valueLength())
                    .toArray(ValueLayout.JAVA_BYTE));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            cursor.close(); // unpins the memtable or table the value was copied from
        }
    }

    @Override
    public CompletionStage<Void> put(byte[] key, MemorySegment value, long expiresAtMs, Quorum quorum) {
        checkQuorum(quorum);
        // the value goes from the caller's memory to the WAL and the memtable slab, with no copy in between
        return apply(key, expiresAtMs, value);
    }

    @Override
    public CompletionStage<Void> delete(byte[] key, Quorum quorum) {
        checkQuorum(quorum);
        return apply(key, Entry.NO_EXPIRY, null);
    }

    private CompletionStage<Void> apply(byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
        try {
            engine.apply(key, clock.now(), expiresAtMs, value);
            return DONE;
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
            return DONE;
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
