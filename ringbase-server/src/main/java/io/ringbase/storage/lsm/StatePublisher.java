package io.ringbase.storage.lsm;

import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.manifest.Manifest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * The LSM engine's live state: the current {@link View} and the manifest that makes it durable, and the
 * only way either changes (RocksDB's {@code VersionSet::LogAndApply}). A flush, compaction or quarantine
 * publishes under {@code publishLock}: the manifest (with its fsyncs) is written first, then
 * {@code stateLock} covers only the swap of the view, so a memtable switch, which takes
 * {@code stateLock} alone, never waits for a manifest's fsync. Lock order and owners: docs/design.md,
 * "Locking in the LSM engine".
 *
 * <p>Readers take {@link #current()} without a lock, or {@link #acquire()} to pin it. The engine holds one
 * reference on the current view, given back when a newer one replaces it.
 */
final class StatePublisher {

    /** Serializes manifest writes (flush, compaction and quarantine publishes, snapshots). Taken before stateLock. */
    private final ReentrantLock publishLock = new ReentrantLock();
    /** Guards view swaps; held only for the swap itself. */
    private final ReentrantLock stateLock = new ReentrantLock();
    /** Signalled under stateLock whenever a publish is done or a flush failed. */
    private final Condition flushed = stateLock.newCondition();

    private final FileIo io;
    private final Path dir;
    private final TableFiles files;
    private final EngineHealth health;

    private volatile View view; // replaced under stateLock; the engine holds one reference to it
    private volatile boolean engineClosed; // set once the last view is released

    StatePublisher(FileIo io, Path dir, TableFiles files, EngineHealth health) {
        this.io = io;
        this.dir = dir;
        this.files = files;
        this.health = health;
    }

    /** Sets the first view, at open; the engine's reference is the caller's. */
    void init(View first) {
        view = first;
    }

    /** The current view, not retained: for decisions a stale answer only delays. */
    View current() {
        return view;
    }

    /**
     * The current view, retained: the caller must {@link View#release()} it.
     *
     * @throws IllegalStateException if the engine is closed
     */
    View acquire() {
        View v = tryAcquire();
        if (v == null) {
            throw new IllegalStateException("storage engine is closed");
        }
        return v;
    }

    /**
     * {@link #acquire()} for callers that report a closed engine as an {@link IOException}.
     *
     * @throws IOException if the engine is closed
     */
    View acquireOpen() throws IOException {
        View v = tryAcquire();
        if (v == null) {
            throw new IOException("storage engine is closed");
        }
        return v;
    }

    /** The current view, retained, or {@code null} once the engine has closed (its last view is released). */
    private View tryAcquire() {
        while (true) {
            View v = view;
            if (v.tryRetain()) {
                return v;
            }
            if (engineClosed && view == v) {
                return null;
            }
        }
    }

    /**
     * The current view's live SSTables, each retained (its file stays mapped) without pinning the view's
     * memtables, for compaction: a merge can outlast many flushes, and a whole view would keep the
     * native memory of the memtables it held until the merge ends. Give them back with
     * {@link #releaseTables}.
     */
    List<LiveTable> acquireTables() {
        View v = acquire();
        try {
            List<LiveTable> tables = v.tables();
            for (LiveTable t : tables) {
                if (!t.reader().tryRetain()) { // cannot happen: the view holds a reference on each
                    throw new IllegalStateException(
                            "a live SSTable was released: " + t.reader().path());
                }
            }
            return tables;
        } finally {
            v.release();
        }
    }

    static void releaseTables(List<LiveTable> tables) {
        for (LiveTable t : tables) {
            t.reader().release();
        }
    }

    /** An action that may throw {@link IOException}. */
    interface IoAction {
        void run() throws IOException;
    }

    /** An action that may throw {@link IOException} and returns a result. */
    interface IoCall<R> {
        R call() throws IOException;
    }

    /** Runs {@code action} under publishLock: no flush, compaction or quarantine publishes meanwhile. */
    void whilePublishLocked(IoAction action) throws IOException {
        publishLock.lock();
        try {
            action.run();
        } finally {
            publishLock.unlock();
        }
    }

    /** {@link #whilePublishLocked(IoAction)} for an action with a result. */
    <R> R whilePublishLocked(IoCall<R> action) throws IOException {
        publishLock.lock();
        try {
            return action.call();
        } finally {
            publishLock.unlock();
        }
    }

    /**
     * Holds publishLock. Writes the manifest of {@code change} applied to the current view, then swaps
     * in {@code change} applied to the view current at that moment: a memtable switch may have happened
     * while the manifest was written (publishLock keeps the tables as they were), and a switch only adds
     * a segment newer than every one the manifest's replay point covers.
     *
     * @throws IllegalStateException if the manifest's WAL replay point passes a segment not yet flushed
     */
    void publish(UnaryOperator<View> change) throws IOException {
        publish(change, () -> {});
    }

    /**
     * As {@link #publish(UnaryOperator)}, and runs {@code published} once the new view is current, before
     * the threads waiting for a publish wake: what they read next (a flush counted in the engine's figures)
     * already includes it. {@code published} runs under {@code stateLock}; it must be short and take no lock.
     */
    void publish(UnaryOperator<View> change, Runnable published) throws IOException {
        if (!publishLock.isHeldByCurrentThread()) {
            throw new IllegalStateException("publish without publishLock");
        }
        View planned = applyChange(change);
        try {
            Manifest.write(io, dir, planned.manifest(files.peekNextNumber()));
        } finally {
            planned.release();
        }
        long replayFrom = planned.walReplayFrom();
        stateLock.lock();
        try {
            View next = change.apply(view);
            if (next.walReplayFrom() < replayFrom) {
                throw new IllegalStateException("manifest replay point " + replayFrom + " passes unflushed WAL segment "
                        + next.walReplayFrom());
            }
            swap(next);
            published.run();
            flushed.signalAll();
        } finally {
            stateLock.unlock();
        }
    }

    private View applyChange(UnaryOperator<View> change) {
        stateLock.lock();
        try {
            return change.apply(view);
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * A memtable switch: under stateLock, makes {@code change} of the current view current, running
     * {@code beforeSwap} once the new view is made and before it is swapped in (the WAL segment changes
     * there, so that the segment and its memtable become active together, or neither). No manifest is
     * written: a switch only adds a segment newer than the manifest's replay point.
     */
    void switchView(UnaryOperator<View> change, Runnable beforeSwap) {
        stateLock.lock();
        try {
            View switched = change.apply(view); // checks activation order
            beforeSwap.run();
            swap(switched);
        } finally {
            stateLock.unlock();
        }
    }

    /** Holds stateLock. Makes {@code next} current and gives back the engine's reference to the old view. */
    private void swap(View next) {
        View old = view;
        view = next;
        old.release();
    }

    /**
     * Waits for finished publishes while {@code waiting} holds.
     *
     * @throws StorageFaultException the flush's failure, at once, while a flush is being retried (the
     *                               flusher retries by itself: no use waiting out the stall timeout)
     * @throws StoreBusyException    with {@code timeoutMessage} at {@code deadlineNanos}
     */
    void awaitFlushes(BooleanSupplier waiting, long deadlineNanos, String timeoutMessage) throws IOException {
        stateLock.lock();
        try {
            while (waiting.getAsBoolean()) {
                StorageFaultException failing = health.flushFailure();
                if (failing != null) {
                    throw health.noteFault(
                            failing.copy()); // the flusher retries by itself; do not wait out the stall timeout
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw new StoreBusyException(timeoutMessage);
                }
                flushed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a flush");
        } finally {
            stateLock.unlock();
        }
    }

    /** Wakes the writers waiting in {@link #awaitFlushes}, so they see a flush failure. */
    void signalFlushWaiters() {
        stateLock.lock();
        try {
            flushed.signalAll();
        } finally {
            stateLock.unlock();
        }
    }

    /** At close: gives back the engine's reference to the last view; readers still holding it keep its memtables. */
    void close() {
        stateLock.lock();
        try {
            View last = view;
            engineClosed = true;
            last.release();
        } finally {
            stateLock.unlock();
        }
    }
}
