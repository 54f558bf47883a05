package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * This node's own engine as a {@link Replica}. Reads and writes run on the calling thread and return a
 * completed future, except a write the engine cannot take without waiting ({@link StorageEngine#tryApply}:
 * a flush behind, an fsync per write), which runs on {@code blockingWrites}, and a read that would wait for
 * the disk ({@link StorageEngine#tryRead}: a table out of the page cache), which runs on
 * {@code blockingReads}; those complete later: the caller may be an event loop, which must never wait on I/O. Scan pages run on {@code scanExecutor},
 * because a cluster range scan asks for the next page from whatever thread completed another replica's
 * page (a client event loop, which must not block).
 */
public final class LocalReplica implements Replica {

    private final NodeId node;
    private final ReadGate gate;
    private final StorageEngine engine;

    private final Executor scanExecutor;
    private final Executor blockingWrites;
    private final Executor blockingReads;

    /** What {@link #tryApplyChecked} returns when the engine declined to write without waiting. */
    public static final long NOT_APPLIED = Long.MIN_VALUE;

    /** What {@link #tryGet} returns when the read would wait for the disk: a marker, compared by identity. */
    public static final Entry WOULD_WAIT = Entry.tombstone(new byte[0], Long.MIN_VALUE);

    /** Whether {@code found}, from {@link #tryGet}, is {@link #WOULD_WAIT}. */
    @SuppressWarnings("ReferenceEquality") // a marker: only that instance means it, not an equal tombstone
    public static boolean wouldWait(Entry found) {
        return found == WOULD_WAIT;
    }

    /** What {@link #tryVersionOf} returns when the read would wait for the disk (no stored version is this low). */
    public static final long VERSION_WOULD_WAIT = Long.MIN_VALUE + 1;

    /**
     * The cursor of {@link #tryGet}, {@link #tryVersionOf}, {@link #versionOf} and {@link #writeResult}, one
     * per thread, so that they reuse its SSTable block buffers (a new cursor's first table lookup makes
     * about 1 KiB of heap objects); closed before they return, and none of them calls another.
     */
    private static final ThreadLocal<ReadCursor> CURSOR = ThreadLocal.withInitial(ReadCursor::new);

    /**
     * @param scanExecutor   runs {@link #scan} pages; a rejected task fails that scan
     * @param blockingWrites runs the writes that must wait; a rejected task fails that write
     * @param blockingReads  runs the reads that must wait for the disk; a rejected task fails that read
     */
    public LocalReplica(
            NodeId node, StorageEngine engine, Executor scanExecutor, Executor blockingWrites, Executor blockingReads) {
        this(node, engine, scanExecutor, blockingWrites, blockingReads, ReadGate.OPEN);
    }

    /**
     * As {@link #LocalReplica(NodeId, StorageEngine, Executor, Executor, Executor)}, with reads, version
     * queries and scans failing ({@link ReplicaException.Failed}) while {@code gate} refuses them.
     */
    public LocalReplica(
            NodeId node,
            StorageEngine engine,
            Executor scanExecutor,
            Executor blockingWrites,
            Executor blockingReads,
            ReadGate gate) {
        this.gate = gate;
        this.node = node;
        this.engine = engine;
        this.scanExecutor = scanExecutor;
        this.blockingWrites = blockingWrites;
        this.blockingReads = blockingReads;
    }

    @Override
    public NodeId node() {
        return node;
    }

    /** The engine behind this replica. */
    public StorageEngine engine() {
        return engine;
    }

    /** A failed future if the gate refuses reads now, else {@code null}. */
    private <T> @Nullable CompletableFuture<T> refused() {
        String why = gate.readRefusal();
        return why == null ? null : CompletableFuture.failedFuture(new ReplicaException.Failed(node, why, null));
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        CompletableFuture<Entry> refused = refused();
        if (refused != null) {
            return refused;
        }
        try {
            Entry found = tryGet(engine, key);
            if (!wouldWait(found)) {
                return CompletableFuture.completedFuture(found);
            }
            return onExecutor(blockingReads, () -> engine.get(key));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Long> version(byte[] key) {
        CompletableFuture<Long> refused = refused();
        if (refused != null) {
            return refused;
        }
        try {
            long version = tryVersionOf(engine, key);
            if (version != VERSION_WOULD_WAIT) {
                return CompletableFuture.completedFuture(version);
            }
            return onExecutor(blockingReads, () -> versionOf(engine, key));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** An engine call that may fail with an {@link IOException}, for {@link #onExecutor}. */
    private interface EngineCall<T> {
        T call() throws IOException;
    }

    /**
     * Runs {@code call} on {@code executor}; an {@link IOException} fails the future.
     *
     * @throws RejectedExecutionException if the executor rejects the task (the callers fail the future)
     */
    private static <T> CompletableFuture<T> onExecutor(Executor executor, EngineCall<T> call) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return call.call();
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                },
                executor);
    }

    /**
     * {@code engine.get(key)}, unless answering would wait for the disk ({@link StorageEngine#tryRead}):
     * then {@link #WOULD_WAIT}, having read nothing. For threads that must not wait (event loops).
     *
     * @return the newest entry (tombstones and expired entries included), {@code null} if none, or
     *         {@link #WOULD_WAIT}
     * @throws IOException if the engine fails
     */
    public static Entry tryGet(StorageEngine engine, byte[] key) throws IOException {
        ReadCursor cursor = CURSOR.get();
        try {
            return switch (engine.tryRead(key, cursor)) {
                case FOUND -> cursor.toEntry();
                case NOT_FOUND -> null;
                case WOULD_WAIT -> WOULD_WAIT;
            };
        } finally {
            cursor.close();
        }
    }

    /**
     * {@link #versionOf}, unless answering would wait for the disk: then {@link #VERSION_WOULD_WAIT},
     * having read nothing.
     *
     * @throws IOException if the engine fails
     */
    public static long tryVersionOf(StorageEngine engine, byte[] key) throws IOException {
        ReadCursor cursor = CURSOR.get();
        try {
            return switch (engine.tryRead(key, cursor)) {
                case FOUND -> cursor.version();
                case NOT_FOUND -> NO_VERSION;
                case WOULD_WAIT -> VERSION_WOULD_WAIT;
            };
        } finally {
            cursor.close();
        }
    }

    /**
     * The version {@code engine} holds for {@code key} (tombstones and expired entries included), or
     * {@link Replica#NO_VERSION}; reads no value.
     *
     * @throws IOException if the engine fails
     */
    public static long versionOf(StorageEngine engine, byte[] key) throws IOException {
        try (ReadCursor cursor = CURSOR.get()) {
            return engine.read(key, cursor) ? cursor.version() : NO_VERSION;
        }
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        return writeChecked(entry).thenApply(stored -> null);
    }

    @Override
    public CompletableFuture<Long> writeChecked(Entry entry) {
        try {
            long stored = tryApplyChecked(engine, entry);
            if (stored != NOT_APPLIED) {
                return CompletableFuture.completedFuture(stored);
            }
            return onExecutor(blockingWrites, () -> applyChecked(engine, entry));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * As {@link #applyChecked}, but only if answering needs no disk read ({@link StorageEngine#tryRead}) and
     * the engine takes the write without waiting ({@link StorageEngine#tryApply}); {@link #NOT_APPLIED} if
     * either would wait (nothing was written).
     *
     * @throws IOException if the engine fails
     */
    public static long tryApplyChecked(StorageEngine engine, Entry entry) throws IOException {
        long held = tryWriteResult(engine, entry);
        if (held == NOT_APPLIED || held != entry.version()) {
            return held; // would wait, or the replica holds a newer entry: not written
        }
        if (!engine.tryApply(entry)) { // the entry whole: its parts would drop a typed entry's flag
            return NOT_APPLIED;
        }
        return entry.version();
    }

    /**
     * Applies {@code entry} unless the engine already holds a newer entry of its key, and returns
     * {@link Replica#writeResult} of it against the entry held before: its own version if it was written
     * (it was newer, or the very entry held), else the version a rewrite must exceed, having written nothing.
     *
     * <p>The check comes before the write, not after: a write answered as refused must never have been the
     * newest entry here, even for an instant, because a one-round quorum write that every replica refused is
     * sent again under a newer version ({@link OneRoundWrite}); a concurrent read between a write and a
     * check after it could have seen it. A newer entry landing between the check and the write makes the
     * answer say "written" for an entry that is not the newest: harmless, since it was older than nothing
     * held when checked. An older entry is not written at all (the engine would store it, invisible, for
     * nothing).
     *
     * @throws IOException if the engine fails
     */
    public static long applyChecked(StorageEngine engine, Entry entry) throws IOException {
        long held = writeResult(engine, entry);
        if (held != entry.version()) {
            return held;
        }
        engine.apply(entry);
        return entry.version();
    }

    /**
     * {@link Replica#writeResult} of {@code written} against the entry {@code engine} holds for its key,
     * reading only the held entry's version unless the two versions are equal (a tie decided by kind and
     * value, rare): the common case copies no value and makes no {@link Entry}. Reading the whole entry
     * back instead allocated 232 heap bytes per check after a 100-byte write, against 88 this way
     * (measured in process).
     *
     * @throws IOException if the engine fails
     */
    static long writeResult(StorageEngine engine, Entry written) throws IOException {
        try (ReadCursor held = CURSOR.get()) {
            if (!engine.read(written.key(), held)) {
                return written.version();
            }
            return writeResult(written, held);
        }
    }

    /** {@link #writeResult(StorageEngine, Entry)}, or {@link #NOT_APPLIED} if the read would wait for the disk. */
    static long tryWriteResult(StorageEngine engine, Entry written) throws IOException {
        ReadCursor held = CURSOR.get();
        try {
            return switch (engine.tryRead(written.key(), held)) {
                case FOUND -> writeResult(written, held);
                case NOT_FOUND -> written.version();
                case WOULD_WAIT -> NOT_APPLIED;
            };
        } finally {
            held.close();
        }
    }

    private static long writeResult(Entry written, ReadCursor held) {
        long version = held.version();
        if (version != written.version()) {
            return Math.max(version, written.version()); // older: the write wins; newer: the version to beat
        }
        return Replica.writeResult(written, held.toEntry());
    }

    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
        CompletableFuture<EntryPage> refused = refused();
        if (refused != null) {
            return refused;
        }
        try {
            return onExecutor(scanExecutor, () -> page(start, end, maxBytes));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** As {@link #scan(byte[], byte[], int)}, from the engine's scan of the keys {@code share} keeps. */
    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes, ShareFilter share) {
        CompletableFuture<EntryPage> refused = refused();
        if (refused != null) {
            return refused;
        }
        try {
            return onExecutor(scanExecutor, () -> page(engine, start, end, maxBytes, share));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Reads one page synchronously: entries with {@code start <= key < end} (tombstones and expired
     * included), stopping after the entry that takes the page past {@code maxBytes} encoded bytes.
     *
     * @throws IOException if the engine fails
     */
    public EntryPage page(byte[] start, byte[] end, int maxBytes) throws IOException {
        return page(engine, start, end, maxBytes);
    }

    /** {@link #page(byte[], byte[], int)} of any engine. */
    public static EntryPage page(StorageEngine engine, byte[] start, byte[] end, int maxBytes) throws IOException {
        return page(engine, start, end, maxBytes, null);
    }

    /**
     * {@link #page(StorageEngine, byte[], byte[], int)} of the keys {@code keys} keeps ({@code null}: every
     * key); the others are skipped before they count toward {@code maxBytes}.
     */
    public static EntryPage page(StorageEngine engine, byte[] start, byte[] end, int maxBytes, @Nullable KeyFilter keys)
            throws IOException {
        List<Entry> out = new ArrayList<>();
        long bytes = 0;
        try (CloseableIterator<Entry> it =
                keys == null ? engine.scan(start, end, false) : engine.scan(start, end, false, keys)) {
            while (it.hasNext()) {
                if (bytes >= maxBytes) {
                    return new EntryPage(out, EntryPage.successor(out.getLast().key()));
                }
                Entry e = it.next();
                out.add(e);
                bytes += EntryFormat.encodedSize(e);
            }
        }
        return new EntryPage(out, null);
    }

    @Override
    public CompletableFuture<Void> probe() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<String> ping() {
        return CompletableFuture.completedFuture(engine.unwritableReason());
    }
}
