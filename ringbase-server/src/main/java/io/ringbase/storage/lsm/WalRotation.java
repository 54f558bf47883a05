package io.ringbase.storage.lsm;

import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.lsm.View.Frozen;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active WAL segment and its memtable, and their switch to a fresh pair. Writers append under the
 * read side of {@code switchLock} ({@link #writerLock()}); a switch takes the write side, so a record's
 * WAL segment and memtable always switch together. The next segment is created ahead of time on the flush
 * thread (the spare, guarded by this object's monitor), so a switch is a swap of references: no file is
 * created and nothing is fsynced under the lock or on the writer that triggers it, and segments are
 * activated in file-number order; each one activated follows the one before it ({@link WalWriter#follow}),
 * so durability and recovery keep the log's order across segments. A segment poisoned by a failed write or fsync is rolled away from on
 * the flush thread. Lock order and owners: docs/design.md, "Locking in the LSM engine".
 */
final class WalRotation {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    private final LsmOptions options;
    private final Path dir;
    private final TableFiles files;
    private final StatePublisher state;
    private final EngineHealth health;
    private final EngineCounters counters;
    /** The flush thread: creates spares, closes switched-out segments, then flushes. */
    private final Executor flushThread;
    /** Run on the flush thread after each switch, once the old segment is closed: flushes the memtables waiting. */
    private final Runnable flushPending;

    private final ReentrantReadWriteLock switchLock = new ReentrantReadWriteLock();
    private volatile WalWriter wal; // replaced under switchLock's write side; read freely
    private NewSegment spare; // the next WAL segment, created ahead; guarded by this
    private boolean closed; // guarded by switchLock

    WalRotation(
            LsmOptions options,
            Path dir,
            TableFiles files,
            StatePublisher state,
            EngineHealth health,
            EngineCounters counters,
            Executor flushThread,
            Runnable flushPending) {
        this.options = options;
        this.dir = dir;
        this.files = files;
        this.state = state;
        this.health = health;
        this.counters = counters;
        this.flushThread = flushThread;
        this.flushPending = flushPending;
    }

    /** At open: creates WAL segment {@code number} as the active one. */
    void start(long number) throws IOException {
        wal = WalWriter.create(
                options.fileIo(),
                FileNames.wal(dir, number),
                options.walSync(),
                options.walSyncIntervalMs(),
                counters.walStats);
        wal.onPoisoned(this::rollSoon);
    }

    /** A new, empty memtable of the configured size, counted in the engine's native bytes. */
    Memtable newMemtable() {
        return new Memtable(options.memtableBytes(), counters.memtableNativeBytes);
    }

    /** The active WAL segment; read freely (a stale answer only delays a switch). */
    WalWriter active() {
        return wal;
    }

    /** The read side of switchLock, which writers hold while they append and fill the memtable. */
    Lock writerLock() {
        return switchLock.readLock();
    }

    /**
     * Under the read side of switchLock: the active WAL segment, or {@code null} if it is full or was
     * poisoned by a failed write or fsync (the writer then switches to a fresh segment).
     *
     * @throws IOException if the engine is closed
     */
    WalWriter segmentWithRoom() throws IOException {
        if (closed) {
            throw new IOException("storage engine is closed");
        }
        WalWriter w = wal;
        return w.sizeBytes() >= options.walSegmentBytes() || w.failure() != null ? null : w;
    }

    /** A created, empty WAL segment and its file number. */
    record NewSegment(long number, WalWriter writer) {
        void discard(FileIo io) throws IOException {
            try {
                writer.close();
            } finally {
                io.delete(writer.path());
            }
        }
    }

    /**
     * Makes {@code next} the active segment with a new memtable in place of {@code current}, unless
     * {@code current} is no longer active or another memtable still waits for its flush (then
     * {@code next} goes back as the spare); and hands the old pair to the flush thread, which
     * closes the old segment (its final fsync) and prepares the next spare before flushing, off the lock.
     */
    void switchTo(NewSegment next, Memtable current) throws IOException {
        WalWriter old;
        switchLock.writeLock().lock();
        try {
            View v = state.current();
            if (closed || !v.immutables().isEmpty() || v.active() != current || next.number() <= v.activeWalNumber()) {
                giveBackSpare(next);
                return;
            }
            old = wal;
            try {
                // a write() of one small record, no fsync: recovery replays the new segment only after
                // every acknowledged record of the old one, and the new one's fsyncs sync the old one first
                next.writer().follow(v.activeWalNumber(), old);
            } catch (IOException | RuntimeException e) {
                try {
                    next.discard(options.fileIo());
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            state.switchView(
                    now -> {
                        List<Frozen> imms = new ArrayList<>(now.immutables());
                        imms.add(new Frozen(now.active(), now.activeWalNumber()));
                        Memtable fresh = newMemtable();
                        try {
                            return new View(fresh, next.number(), imms, now.tables()); // checks activation order
                        } finally {
                            fresh.release(); // views hold memtables: the slabs go with the last view that holds them
                        }
                    },
                    () -> wal = next.writer()); // the segment and its memtable become active together, or neither
        } finally {
            switchLock.writeLock().unlock();
        }
        WalWriter closing = old;
        flushThread.execute(() -> {
            try {
                prepareSpare();
            } finally {
                // whatever prepareSpare met, the old segment is closed and its memtable flushed: without
                // that flush no later switch can happen, and every write stalls
                try {
                    closing.close();
                } catch (IOException e) {
                    // its records are in the memtable now being flushed, which makes them durable
                    log.warn(
                            "closing WAL segment {} failed; its records are durable once its memtable is flushed",
                            closing.path(),
                            e);
                } finally {
                    flushPending.run();
                }
            }
        });
    }

    /**
     * The spare WAL segment, taken: with {@code create}, made here if there is none (blocking: a file
     * and directory fsync), else {@code null} if there is none.
     */
    synchronized NewSegment takeSpare(boolean create) throws IOException {
        NewSegment s = spare;
        spare = null;
        if (s == null && create) {
            s = newSegment();
        }
        return s;
    }

    /** Whether a spare segment is ready now; a hint for {@link WritePath#writeMayBlock()}. */
    synchronized boolean hasSpare() {
        return spare != null;
    }

    /**
     * Keeps {@code s} as the spare, unless there is one or it is older than the active segment: two
     * writers that each took or made a segment race to switch, and the loser's segment may be lower
     * than the winner's. Activating it later would put a segment below an unflushed one, which a
     * restart replaying from the manifest's point would skip: it is discarded.
     */
    private synchronized void giveBackSpare(NewSegment s) throws IOException {
        if (spare == null && !health.closing() && s.number() > state.current().activeWalNumber()) {
            spare = s;
        } else {
            s.discard(options.fileIo());
        }
    }

    /** Flush thread: creates the spare WAL segment if there is none. */
    void prepareSpare() {
        synchronized (this) {
            if (spare != null || health.closing()) {
                return;
            }
            try {
                spare = newSegment();
            } catch (IOException | RuntimeException | Error e) {
                // An Error too (the OutOfMemoryError of a syncer thread that cannot start, under a thread or
                // memory limit): the caller still has a segment to close and a memtable to flush.
                log.error(
                        "could not create the next WAL segment ahead of time; the next memtable switch will try again",
                        e);
            }
        }
    }

    /** Holds this (numbers are taken in activation order). */
    private NewSegment newSegment() throws IOException {
        long walNumber = files.nextNumber();
        WalWriter writer = WalWriter.create(
                options.fileIo(),
                FileNames.wal(dir, walNumber),
                options.walSync(),
                options.walSyncIntervalMs(),
                counters.walStats);
        writer.onPoisoned(this::rollSoon);
        return new NewSegment(walNumber, writer);
    }

    /** Asks the flush thread to roll away from a poisoned WAL segment (the periodic fsync or an append failed). */
    void rollSoon() {
        try {
            flushThread.execute(this::rollIfPoisoned);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * Flush thread: if the active WAL segment is poisoned and no memtable waits for its flush, switches
     * to a fresh segment and a new memtable, so that the memtable whose records were in the poisoned
     * segment (under {@code periodic}, possibly acknowledged but never fsynced) is flushed to an SSTable.
     * A segment that cannot be created is retried with backoff while nothing else is to be done; a
     * writer that needs the switch tries too.
     */
    void rollIfPoisoned() {
        long backoffMs = Flusher.RETRY_MIN_MS;
        while (!health.closing()) {
            WalWriter w = wal;
            View v = state.current();
            if (w.failure() == null || !v.immutables().isEmpty()) {
                return; // healthy, or the flusher calls again once the waiting memtable is flushed
            }
            try {
                switchTo(takeSpare(true), v.active());
                log.warn(
                        "rolled from poisoned WAL segment {} to a fresh one ({})",
                        w.path().getFileName(),
                        w.failure().getMessage());
                return;
            } catch (IOException | RuntimeException e) {
                health.noteFault(new StorageFaultException(
                        "rolling from poisoned WAL segment " + w.path().getFileName(), e));
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(2 * backoffMs, Flusher.RETRY_MAX_MS);
            }
        }
    }

    /** At close, first step: whether the engine was closed already (then close does nothing). */
    boolean isClosed() {
        switchLock.writeLock().lock();
        try {
            return closed;
        } finally {
            switchLock.writeLock().unlock();
        }
    }

    /**
     * At close, after the final flush: refuses every later write and closes the active segment, then
     * deletes the spare.
     *
     * @return the first failure, or {@code null}
     */
    IOException close() {
        IOException failure = null;
        switchLock.writeLock().lock();
        try {
            closed = true;
            wal.close();
        } catch (IOException e) {
            failure = e;
        } finally {
            switchLock.writeLock().unlock();
        }
        try {
            NewSegment unused = takeSpare(false);
            if (unused != null) {
                unused.discard(options.fileIo());
            }
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        return failure;
    }
}
