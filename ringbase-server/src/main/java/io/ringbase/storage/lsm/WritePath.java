package io.ringbase.storage.lsm;

import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.WriteBatch;
import io.ringbase.storage.lsm.WalRotation.NewSegment;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.compaction.CompactionPicker;
import io.ringbase.storage.lsm.compaction.CompactionScheduler;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The LSM engine's writes and their backpressure. A write reserves room for its node in the active
 * memtable, appends to the WAL (durable per the sync policy) and then fills the reserved node, all under
 * the read side of {@code switchLock} ({@link WalRotation}), so that a memtable switch never separates a
 * record's WAL segment from its memtable, and a record is never in the WAL of a memtable that has no room
 * for it. At most one switched-out memtable waits for its flush: a writer that would need a second
 * waits (bounded by {@link LsmOptions#flushStallTimeoutMs()}), and the {@code try} forms decline instead
 * of waiting. While compaction is behind, writes are delayed, then stopped (RocksDB's level-0 triggers,
 * counting the tables compaction has yet to merge).
 * Thread-safe.
 */
final class WritePath {

    private final LsmOptions options;
    private final WalRotation rotation;
    private final StatePublisher state;
    private final EngineHealth health;
    private final EngineCounters counters;
    private final CompactionScheduler<?> compaction;
    /** Counts the tables the write triggers look at ({@link View#compactionBacklog}). */
    private final CompactionPicker picker;

    WritePath(
            LsmOptions options,
            WalRotation rotation,
            StatePublisher state,
            EngineHealth health,
            EngineCounters counters,
            CompactionScheduler<?> compaction,
            CompactionPicker picker) {
        this.options = options;
        this.picker = picker;
        this.rotation = rotation;
        this.state = state;
        this.health = health;
        this.counters = counters;
        this.compaction = compaction;
    }

    /** {@link LsmEngine#apply(byte[], long, long, MemorySegment)}: waits for room, within the stall timeout. */
    void apply(byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed) throws IOException {
        long valueLength = value == null ? 0 : value.byteSize();
        if (backlog() >= options.compaction().slowdownTables()) {
            compactionBackpressure();
        }
        long deadline = 0;
        Memtable full;
        while ((full = applyIfRoom(key, version, expiresAtMs, value, typed, valueLength)) != null) {
            if (deadline == 0) {
                deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
            }
            try {
                makeRoom(full, deadline);
            } catch (StorageFaultException | StoreBusyException | InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                throw health.noteFault(new StorageFaultException("switching to a fresh WAL segment", e));
            }
        }
    }

    /** {@link LsmEngine#tryApply}: writes unless that would wait. */
    boolean tryApply(byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed)
            throws IOException {
        if (everyWriteWaits(state.current())) {
            return false;
        }
        long valueLength = value == null ? 0 : value.byteSize();
        for (int attempt = 0; attempt < 2; attempt++) {
            Memtable full = applyIfRoom(key, version, expiresAtMs, value, typed, valueLength);
            if (full == null) {
                return true;
            }
            if (!trySwitch(full)) {
                return false;
            }
        }
        return false;
    }

    /**
     * {@link LsmEngine#tryApplyAll}: reserves memtable room for as many of the entries as it has, appends
     * their WAL records with one write, then fills the reservations; switches to a fresh memtable (as
     * {@link #tryApply}) when one fills up mid-batch, at most twice per call.
     */
    boolean tryApplyAll(WriteBatch batch) throws IOException {
        if (everyWriteWaits(state.current())) {
            return batch.applied() == batch.size();
        }
        int switches = 0;
        while (batch.applied() < batch.size()) {
            Memtable full = applyAllIfRoom(batch);
            if (full != null && (++switches > 2 || !trySwitch(full))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #applyIfRoom} for the entries of {@code batch} from {@link WriteBatch#applied()} on: those
     * that fit in the active memtable are written, with one WAL append for all, and marked applied.
     *
     * @return {@code null} if all are written, else the active memtable, which (or whose WAL segment)
     *         had no room for the next one
     */
    private Memtable applyAllIfRoom(WriteBatch batch) throws IOException {
        Lock lock = rotation.writerLock();
        lock.lock();
        try {
            WalWriter w = rotation.segmentWithRoom();
            Memtable target = state.current().active();
            if (w == null) {
                return target;
            }
            int from = batch.applied();
            long[] nodes = batch.scratch();
            int to = from;
            while (to < batch.size()) {
                long node = target.reserve(batch.key(to).length, batch.valueLength(to));
                if (node == Memtable.NO_ROOM) {
                    break;
                }
                nodes[to++] = node;
            }
            if (to > from) {
                try {
                    w.appendAll(batch, from, to);
                } catch (IOException e) {
                    throw walAppendFailed(w, e);
                }
                for (int i = from; i < to; i++) {
                    target.fill(nodes[i], batch.key(i), batch.version(i), batch.expiresAtMs(i), batch.value(i));
                }
                target.linkAll(nodes, from, to);
                batch.markApplied(to);
                health.writeWentThrough();
            }
            return to == batch.size() ? null : target;
        } finally {
            lock.unlock();
        }
    }

    /** A WAL append to {@code w} failed: rolls to a fresh segment soon and reports the fault. */
    private StorageFaultException walAppendFailed(WalWriter w, IOException e) {
        rotation.rollSoon();
        return health.noteFault(
                new StorageFaultException("WAL append to " + w.path().getFileName(), e));
    }

    /**
     * Reserves room in the active memtable, appends to the WAL and fills the reservation, under the
     * read side of switchLock.
     *
     * @return {@code null} if written, else the active memtable, which (or whose WAL segment) had no
     *         room: nothing was written
     */
    private Memtable applyIfRoom(
            byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed, long valueLength)
            throws IOException {
        Lock lock = rotation.writerLock();
        lock.lock();
        try {
            WalWriter w = rotation.segmentWithRoom();
            Memtable target = state.current().active();
            if (w == null) {
                return target;
            }
            long node = target.reserve(key.length, valueLength);
            if (node == Memtable.NO_ROOM) {
                return target;
            }
            try {
                w.append(key, version, expiresAtMs, value, typed);
            } catch (IOException e) {
                throw walAppendFailed(w, e);
            }
            target.insert(node, key, version, expiresAtMs, value, typed);
            health.writeWentThrough();
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** {@link LsmEngine#writeMayBlock()}. */
    boolean writeMayBlock() {
        View v = state.current();
        if (everyWriteWaits(v)) {
            return true;
        }
        if (!v.immutables().isEmpty() && isFull(v.active())) {
            return true;
        }
        return !rotation.hasSpare() && isFull(v.active());
    }

    /**
     * Whether any write would wait now, whatever room the memtable has: the append itself waits for an
     * fsync ({@code --wal-sync always}), or compaction backpressure applies (the slowdown trigger).
     */
    private boolean everyWriteWaits(View v) {
        return options.walSync() == WalSyncPolicy.ALWAYS
                || v.compactionBacklog(picker) >= options.compaction().slowdownTables();
    }

    /** The tables of the current view that compaction has yet to merge ({@link CompactionPicker#backlog}). */
    private int backlog() {
        return state.current().compactionBacklog(picker);
    }

    /**
     * True once the active memtable is nearly full (less room than a small entry needs) or its WAL
     * segment has reached its limit. Takes no lock: a stale answer only delays a switch.
     */
    private boolean isFull(Memtable active) {
        return active.sizeBytes() + Memtable.maxNodeBytes(64, 1024) > active.limitBytes()
                || rotation.active().sizeBytes() >= options.walSegmentBytes();
    }

    /**
     * Write backpressure while compaction is behind (RocksDB's level-0 slowdown and stop triggers):
     * from {@link CompactionOptions#slowdownTables()} SSTables that compaction has yet to merge
     * ({@link CompactionPicker#backlog}: where flushes land and what the picker would merge; not a settled
     * state, which nothing reduces) on, delays the write
     * {@value CompactionOptions#SLOWDOWN_DELAY_MS} ms; from {@link CompactionOptions#stopTables()} on,
     * waits until compaction brings the count below it, at most the flush stall timeout.
     *
     * @throws StoreBusyException if the count stays at the stop trigger for the whole timeout
     */
    private void compactionBackpressure() throws IOException {
        int stop = options.compaction().stopTables();
        long started = System.nanoTime();
        counters.writeStalls.increment();
        try {
            if (backlog() >= stop) {
                compaction.schedule();
                long deadline = started + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
                state.awaitFlushes(
                        () -> backlog() >= stop && !health.closing(),
                        deadline,
                        "compaction has fallen behind: " + backlog() + " SSTables waiting for compaction, writes "
                                + "stop at " + stop);
            } else {
                try {
                    Thread.sleep(CompactionOptions.SLOWDOWN_DELAY_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while slowed down for compaction");
                }
            }
        } finally {
            counters.writeStallNanos.add(System.nanoTime() - started);
        }
    }

    /**
     * Blocking path: waits (until {@code deadlineNanos}) while another memtable still waits for its
     * flush, then switches to a new memtable and the spare WAL segment (creating it here if the flush
     * thread has not yet).
     */
    private void makeRoom(Memtable full, long deadlineNanos) throws IOException {
        boolean stalls =
                !state.current().immutables().isEmpty() && state.current().active() == full; // for stats only
        long started = stalls ? System.nanoTime() : 0;
        try {
            state.awaitFlushes(
                    () -> !state.current().immutables().isEmpty()
                            && state.current().active() == full
                            && !health.closing(),
                    deadlineNanos,
                    "flushing has fallen behind for " + options.flushStallTimeoutMs() + " ms");
        } finally {
            if (stalls) {
                counters.writeStalls.increment();
                counters.writeStallNanos.add(System.nanoTime() - started);
            }
        }
        if (state.current().active() == full) {
            rotation.switchTo(rotation.takeSpare(true), full);
        }
    }

    /**
     * Non-blocking path: switches if no other memtable waits for its flush and a spare WAL segment is
     * ready. True if the active memtable was switched (by this call or a concurrent one).
     */
    private boolean trySwitch(Memtable full) throws IOException {
        if (state.current().active() != full) {
            return true; // another writer switched it already
        }
        if (!state.current().immutables().isEmpty()) {
            return false;
        }
        NewSegment next = rotation.takeSpare(false);
        if (next == null) {
            return false;
        }
        rotation.switchTo(next, full);
        return true;
    }
}
