package io.ringbase.storage.lsm.wal;

import io.ringbase.storage.WalSyncPolicy;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fsyncs of one WAL segment ({@link WalWriter}): its durability points, in the order of the log.
 * The writer's queue writes records and tells this class ({@link #written}); this class decides when
 * what was written is forced to stable storage and does it.
 *
 * <p><b>Sync policy.</b> Under {@link WalSyncPolicy#ALWAYS}, and for an explicit {@link WalWriter#sync},
 * the queue leader fsyncs its batch before it releases the batch's writers ({@link #syncCovering}).
 * Under {@link WalSyncPolicy#PERIODIC} appends never fsync: a daemon thread per segment fsyncs unsynced
 * data once the interval has passed, outside the writer queue and concurrently with it
 * ({@code FileChannel.force} and {@code write} may overlap; a record written during a force is left
 * unsynced for the next one), so an append never waits for a disk flush. (A periodic fsync run in the
 * queue, by whichever append came due, stalled every append behind it for the length of the fsync, tens
 * of ms once a second.)
 *
 * <p><b>Order across segments.</b> A segment that takes over from another ({@link WalWriter#follow})
 * fsyncs what that one still holds unsynced before each fsync of its own ({@link #follow}), so that no
 * record of a later segment is durable before the records of an earlier one (docs/format.md, section
 * 3.2).
 *
 * <p><b>Threading.</b> One fsync at a time per segment, under {@code syncLock}; the lock order is a
 * segment's {@code syncLock}, then its predecessor's, then the writer's queue lock (to poison the
 * segment). Never called holding the writer's queue lock.
 */
final class WalSyncer {

    private static final long SLOW_SYNC_NANOS = TimeUnit.MILLISECONDS.toNanos(WalWriter.SLOW_SYNC_MS);

    /** The segment whose fsyncs these are: its written size, its failure, whether it is closed. */
    private final WalWriter segment;

    private final Path path;
    private final FileChannel channel;
    private final WalSyncPolicy policy;
    private final WalStats stats;
    private final long syncIntervalNanos;
    /** Held around every fsync (periodic or asked for); never taken while holding the writer's lock. */
    private final ReentrantLock syncLock = new ReentrantLock();
    /** The {@link WalSyncPolicy#PERIODIC} sync thread, or {@code null}. */
    private final Thread thread;

    private final AtomicLong syncCalls = new AtomicLong();
    private volatile Runnable onPoisoned = () -> {};
    private volatile boolean unsynced;
    private volatile long lastSyncNanos;
    /** Bytes of the file the last successful fsync covered. */
    private volatile long syncedBytes = WalFormat.SEGMENT_HEADER_SIZE;
    /** The segment active before this one, fsynced before this one is; {@code null} once it has nothing left to sync. */
    private volatile WalSyncer predecessor;

    /**
     * @param periodicSyncIntervalMs for {@link WalSyncPolicy#PERIODIC}: the longest time, ms, that
     *                               written data stays unsynced; positive
     */
    WalSyncer(
            WalWriter segment,
            Path path,
            FileChannel channel,
            WalSyncPolicy policy,
            long periodicSyncIntervalMs,
            WalStats stats) {
        this.segment = segment;
        this.path = path;
        this.channel = channel;
        this.policy = policy;
        this.stats = stats;
        this.syncIntervalNanos = TimeUnit.MILLISECONDS.toNanos(periodicSyncIntervalMs);
        this.lastSyncNanos = System.nanoTime();
        this.thread = policy == WalSyncPolicy.PERIODIC
                ? Thread.ofPlatform()
                        .name("wal-sync-" + path.getFileName())
                        .daemon(true)
                        .unstarted(this::runPeriodic)
                : null;
    }

    /**
     * Starts the periodic sync thread ({@link WalSyncPolicy#PERIODIC} only).
     *
     * @throws OutOfMemoryError if the thread cannot be created
     */
    void start() {
        if (thread != null) {
            thread.start();
        }
    }

    /**
     * Stops the periodic sync thread and waits for it (uninterruptibly: the interrupt flag is restored);
     * for {@link WalWriter#close}, after its final fsync.
     */
    void stop() {
        if (thread == null) {
            return;
        }
        thread.interrupt();
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Records were written to the file (after {@link WalWriter#sizeBytes} grew): they are unsynced. */
    void written() {
        unsynced = true;
    }

    /**
     * This segment's PREDECESSOR record has been written: from now on each of its fsyncs first fsyncs
     * {@code previous}.
     */
    void follow(WalSyncer previous) {
        unsynced = true;
        predecessor = previous;
    }

    /** Bytes of the file the last successful fsync covered. */
    long syncedBytes() {
        return syncedBytes;
    }

    /** Number of fsyncs made after the segment header (the final one in close included). */
    long syncCalls() {
        return syncCalls.get();
    }

    /** Whether this segment still holds on to an earlier one it must fsync first. */
    boolean holdsPredecessor() {
        return predecessor != null;
    }

    /** See {@link WalWriter#onPoisoned}. */
    void onPoisoned(Runnable action) {
        onPoisoned = action;
    }

    /**
     * Queue leader asked to sync: under {@code syncLock}, so that a periodic fsync in flight (which
     * cleared {@code unsynced} before its force) completes first and its failure is seen; then fsyncs
     * what is still unsynced.
     *
     * @throws IOException the segment's failure, or this fsync's
     */
    void syncCovering() throws IOException {
        syncLock.lock();
        try {
            IOException f = segment.failure();
            if (f != null) {
                throw f;
            }
            if (unsynced) {
                fsync();
            }
        } finally {
            syncLock.unlock();
        }
    }

    /** The durability point: forces written records to stable storage. Never retried on failure. Holds syncLock. */
    private void fsync() throws IOException {
        syncPredecessor();
        unsynced = false;
        long covered = segment.sizeBytes();
        long started = System.nanoTime();
        channel.force(false);
        syncedBytes = covered;
        syncCalls.incrementAndGet(); // from the sync thread and from queue leaders
        lastSyncNanos = System.nanoTime();
        long took = lastSyncNanos - started;
        stats.synced(took);
        if (took > SLOW_SYNC_NANOS) {
            stats.slowSync(path, took, WalWriter.SLOW_SYNC_MS, policy);
        }
    }

    /**
     * Holding syncLock, before this segment's fsync: fsyncs what the predecessor (and, through it, the
     * segments before it) still holds unsynced, so that durability follows the log's order. Lock order:
     * a segment's syncLock, then its predecessor's. A poisoned predecessor is skipped: recovery drops
     * this segment's records unless that one's acknowledged bytes survived or were flushed.
     */
    private void syncPredecessor() {
        WalSyncer p = predecessor;
        if (p != null && p.syncForSuccessor()) {
            predecessor = null; // settled: let it go
        }
    }

    /** For the successor: fsyncs what is unsynced here; true once nothing here or before is left to sync. */
    private boolean syncForSuccessor() {
        syncLock.lock();
        try {
            if (segment.failure() == null && unsynced) {
                try {
                    fsync();
                } catch (IOException | RuntimeException e) {
                    segment.poison(e instanceof IOException x ? x : new IOException("WAL fsync failed", e));
                }
            } else {
                syncPredecessor(); // lets go of settled segments down the chain, which stays a few long
            }
            return predecessor == null && (segment.failure() != null || (!unsynced && segment.isClosed()));
        } finally {
            syncLock.unlock();
        }
    }

    /** PERIODIC only: fsyncs data left unsynced for an interval while no writer does it. */
    private void runPeriodic() {
        while (true) {
            // Nothing unsynced: sleep a whole interval (a record appended meanwhile is synced when it ends,
            // within one interval). Waking every millisecond while idle cost each node thousands of
            // context switches a second (seen in a cluster GET profile).
            long wait = unsynced ? lastSyncNanos + syncIntervalNanos - System.nanoTime() : syncIntervalNanos;
            try {
                TimeUnit.NANOSECONDS.sleep(Math.max(wait, TimeUnit.MILLISECONDS.toNanos(1)));
            } catch (InterruptedException e) {
                return; // close() stops us after its own final fsync
            }
            if (unsynced && segment.failure() == null && System.nanoTime() - lastSyncNanos >= syncIntervalNanos) {
                syncLock.lock(); // a sync() arriving meanwhile waits for this force and sees its outcome
                try {
                    if (unsynced && segment.failure() == null) {
                        fsync(); // outside the queue: appends go on meanwhile
                    }
                } catch (IOException | RuntimeException e) {
                    if (segment.isClosed() || Thread.currentThread().isInterrupted()) {
                        return; // close() did its own final fsync before stopping us
                    }
                    segment.poison(e instanceof IOException x ? x : new IOException("WAL fsync failed", e));
                    onPoisoned.run();
                    return; // later appends report it
                } finally {
                    syncLock.unlock();
                }
            }
        }
    }
}
