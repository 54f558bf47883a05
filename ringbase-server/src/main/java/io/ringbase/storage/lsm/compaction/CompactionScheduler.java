package io.ringbase.storage.lsm.compaction;

import io.ringbase.logging.LogThrottle;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.InsufficientSpaceException;
import io.ringbase.storage.KeyFilter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Decides when compaction runs and what it merges; its {@link Host} (the engine) merges and publishes.
 * Runs on the engine's single compaction thread: after each flush ({@link #schedule()}) it merges what
 * the strategy's {@link CompactionPicker} picks or, when it picks nothing, what the
 * {@link TombstoneTrigger} chooses, round after round, until neither finds anything; a major compaction
 * ({@link #compactAll()}) merges every live table. A merge that lacks disk space is postponed to the next
 * flush; one whose input is damaged has that input quarantined rather than retried forever; other
 * failures are retried after the next flush. A round gives way to a major compaction or cleanup waiting
 * for the thread, and goes on after it. A {@link #cleanup} is a major compaction that also leaves out
 * the keys a node no longer replicates.
 *
 * <p>Concurrency: {@link #schedule()}, {@link #compactAll()} and {@link #cleanup} may be called from any thread; all merges
 * and quarantines run on the compaction thread, one at a time.
 *
 * @param <T> the host's retained live tables
 */
public final class CompactionScheduler<T extends CompactionScheduler.LiveTables> {

    /** At most one "compaction postponed" line a minute. */
    private static final LogThrottle NO_ROOM_LOG = new LogThrottle(1, TimeUnit.MINUTES);

    /** The live tables of a moment, each retained (its file stays mapped) until {@link #close()}. */
    public interface LiveTables extends AutoCloseable {
        /** The tables, for the picker: numbers and sizes. */
        List<TableInfo> infos();

        /** Gives the tables back. */
        @Override
        void close();
    }

    /** The engine side of compaction. */
    public interface Host<T extends LiveTables> {
        /** The live tables now, retained. */
        T acquireTables();

        /**
         * Merges the tables of {@code tables} numbered in {@code pick} into one and publishes it.
         *
         * @return the output's file number, or -1 if nothing was kept (no output)
         * @throws InsufficientSpaceException before anything is written, if the disk lacks room for it
         * @throws CorruptionException        if an input is damaged (nothing was published)
         * @throws InterruptedIOException     if the merge was aborted for shutdown
         */
        long compact(T tables, Set<Long> pick) throws IOException;

        /**
         * As {@link #compact}, and also leaves out every entry of the keys {@code keep} rejects
         * ({@link Cleanup}); with an empty {@code pick}, does nothing.
         *
         * @throws InsufficientSpaceException before anything is written, if the disk lacks room for it
         * @throws CorruptionException        if an input is damaged (nothing was published)
         * @throws InterruptedIOException     if the merge was aborted for shutdown
         */
        Cleanup.Result cleanup(T tables, Set<Long> pick, KeyFilter keep) throws IOException;

        /**
         * If {@code damage} lies in one of {@code tables}: drops that table from the live set and moves it
         * aside.
         *
         * @return whether a table was quarantined
         */
        boolean quarantine(T tables, CorruptionException damage) throws IOException;

        /** Counts a compaction failure (the engine's stats). */
        void backgroundError();
    }

    private final Host<T> host;
    private final CompactionPicker picker;
    private final TombstoneTrigger tombstones;
    private final LongSupplier wallClockMs;
    /** Used on the compaction thread only. */
    private final CompactionPriority priority;
    /**
     * Outputs of tombstone compactions (for tombstones or expired values) that are still live: never chosen
     * by the trigger again, so that one whose tombstones or expired values could not be dropped is not
     * rewritten in a loop. Changed on the compaction thread only; pruned to the live tables each round.
     */
    private final Set<Long> settledByTombstones = ConcurrentHashMap.newKeySet(); // read by idle()

    private final ExecutorService thread;
    private final BooleanSupplier closing;
    private final Logger log;
    private final AtomicBoolean queued = new AtomicBoolean();
    /** A round of {@link #compactWhileNeeded} is running. */
    private final AtomicBoolean running = new AtomicBoolean();
    /**
     * Major compactions and cleanups submitted and not begun: a round of {@link #compactWhileNeeded} stops
     * for them, since under a steady write load the picker always finds a merge and the round would never end.
     */
    private final AtomicInteger majorsWaiting = new AtomicInteger();
    /** Tables a {@link #quarantineSoon} task is queued for. */
    private final Set<Path> quarantining = ConcurrentHashMap.newKeySet();

    /**
     * @param picker      the strategy's picker
     * @param tombstones  chooses a table to compact for its tombstones and expired values when {@code picker}
     *                    picks nothing
     * @param wallClockMs the wall clock, Unix epoch ms, for {@code tombstones}
     * @param thread      the single compaction thread (the engine shuts it down)
     * @param closing     whether the engine is closing: no new round starts then
     * @param log         the engine's logger, which compaction lines go to
     */
    public CompactionScheduler(
            Host<T> host,
            CompactionPicker picker,
            TombstoneTrigger tombstones,
            LongSupplier wallClockMs,
            CompactionPriority priority,
            ExecutorService thread,
            BooleanSupplier closing,
            Logger log) {
        this.host = host;
        this.picker = picker;
        this.tombstones = tombstones;
        this.wallClockMs = wallClockMs;
        this.priority = priority;
        this.thread = thread;
        this.closing = closing;
        this.log = log;
    }

    /**
     * Any thread: quarantines, soon, on the compaction thread, the table {@code damage} names, if it is
     * still live ({@link Host#quarantine}); for damage a read found (a point read must not write a
     * manifest itself). One task per file while one is queued, however many reads meet it.
     */
    public void quarantineSoon(CorruptionException damage) {
        if (closing.getAsBoolean() || !quarantining.add(damage.file())) {
            return;
        }
        try {
            thread.execute(() -> {
                try (T tables = host.acquireTables()) {
                    host.quarantine(tables, damage);
                } catch (IOException | RuntimeException e) {
                    host.backgroundError();
                    log.error(
                            "quarantine of {} failed; the next read or compaction of it tries again", damage.file(), e);
                } finally {
                    quarantining.remove(damage.file());
                }
            });
        } catch (RejectedExecutionException e) {
            quarantining.remove(damage.file()); // closing
        }
    }

    /** Queues a round of compaction, unless one is queued already or the engine is closing. */
    public void schedule() {
        if (!closing.getAsBoolean() && queued.compareAndSet(false, true)) {
            thread.execute(() -> {
                running.set(true);
                queued.set(false);
                try {
                    compactWhileNeeded();
                } finally {
                    running.set(false);
                }
            });
        }
    }

    private void compactWhileNeeded() {
        while (!closing.getAsBoolean() && majorsWaiting.get() == 0) {
            try (T tables = host.acquireTables()) { // they stay mapped while the merge reads them
                if (!compactOnce(tables)) {
                    return;
                }
            }
        }
    }

    /** One round of {@link #compactWhileNeeded} on {@code tables}: whether to go on. */
    private boolean compactOnce(T tables) {
        List<TableInfo> infos = tables.infos();
        priority.adjust(picker.backlog(infos));
        List<Long> pick = picker.pick(infos);
        boolean forTombstones = false;
        if (pick.isEmpty()) {
            pick = pickForTombstones(infos);
            forTombstones = !pick.isEmpty();
        }
        if (pick.isEmpty()) {
            return false;
        }
        try {
            long output = host.compact(tables, Set.copyOf(pick));
            if (forTombstones && output >= 0) {
                settledByTombstones.add(output);
            }
            return true;
        } catch (InsufficientSpaceException e) {
            if (NO_ROOM_LOG.tryLog() >= 0) {
                log.warn(
                        "{}; postponed to the next flush. Free space, or disk use keeps growing by the tables "
                                + "compaction would merge",
                        e.getMessage());
            }
            return false; // retried after the next flush
        } catch (CorruptionException e) {
            boolean moved;
            try {
                moved = host.quarantine(tables, e);
            } catch (IOException | RuntimeException q) {
                e.addSuppressed(q);
                moved = false;
            }
            if (!moved) {
                host.backgroundError();
                log.error("compaction of SSTables {} failed; will retry after the next flush", pick, e);
            }
            return moved;
        } catch (InterruptedIOException e) {
            log.info("compaction aborted for shutdown");
            return false;
        } catch (IOException | RuntimeException e) {
            host.backgroundError();
            log.error("compaction of SSTables {} failed; will retry after the next flush", pick, e);
            return false;
        }
    }

    /** What the tombstone trigger has the picker merge, or an empty list; logs the choice. */
    private List<Long> pickForTombstones(List<TableInfo> infos) {
        Set<Long> live = new HashSet<>();
        for (TableInfo t : infos) {
            live.add(t.number());
        }
        settledByTombstones.retainAll(live);
        long nowMs = wallClockMs.getAsLong();
        TableInfo candidate = tombstones.choose(infos, nowMs, settledByTombstones);
        if (candidate == null) {
            return List.of();
        }
        List<Long> pick = picker.pickForTombstones(infos, candidate);
        TombstoneTrigger.Droppable droppable = tombstones.droppable(candidate, nowMs);
        log.info(
                "compacting SSTables {} for the tombstones and expired values of {} ({} tombstones and {} expired"
                        + " values of {} entries, {} %)",
                pick,
                candidate.number(),
                droppable.tombstones(),
                droppable.expiredValues(),
                candidate.entryCount(),
                String.format(Locale.ROOT, "%.0f", 100.0 * droppable.total() / candidate.entryCount()));
        return pick;
    }

    /**
     * Whether compaction has nothing to do now: no round queued or running, and nothing the picker or
     * the tombstone trigger would merge in the live tables (a major compaction under way is not seen).
     * Any thread; for tests and benchmarks that wait for compaction to catch up.
     */
    public boolean idle() {
        if (queued.get() || running.get()) {
            return false;
        }
        try (T tables = host.acquireTables()) {
            List<TableInfo> infos = tables.infos();
            return picker.pick(infos).isEmpty()
                    && tombstones.choose(infos, wallClockMs.getAsLong(), settledByTombstones) == null;
        }
    }

    /**
     * Merges every live table into one (a major compaction): on the compaction thread, after any
     * compaction under way, with the usual rules for dropping tombstones and expired entries. Waits for it.
     *
     * @return how many tables were merged (0 if there were none)
     * @throws InsufficientSpaceException if the disk lacks room for the output (nothing was changed)
     * @throws CorruptionException if an input is damaged; it was quarantined if it is still live
     * @throws IOException if the compaction failed (the tables stay as they were) or the engine closed
     */
    public int compactAll() throws IOException {
        return major("compaction", (tables, all) -> {
            if (!all.isEmpty()) {
                host.compact(tables, all);
            }
            return all.size();
        });
    }

    /**
     * A major compaction that also leaves out every entry of the keys {@code keep} rejects ({@link Cleanup}),
     * run and waited for as {@link #compactAll()}, with the same errors; an exception {@code keep} throws
     * fails it as an {@link IOException} with that cause, the tables staying as they were.
     *
     * @return what it did ({@link Cleanup.Result#NOTHING} if there were no tables)
     */
    public Cleanup.Result cleanup(KeyFilter keep) throws IOException {
        return major("cleanup", (tables, all) -> host.cleanup(tables, all, keep));
    }

    /** What a major compaction does on the compaction thread with the live tables, all picked. */
    @FunctionalInterface
    private interface MajorJob<T, R> {
        R run(T tables, Set<Long> all) throws IOException;
    }

    /** Runs {@code job} on the compaction thread over every live table and waits for it. */
    private <R> R major(String what, MajorJob<T, R> job) throws IOException {
        Future<R> done;
        majorsWaiting.incrementAndGet();
        try {
            done = thread.submit(() -> {
                majorsWaiting.decrementAndGet();
                try (T tables = host.acquireTables()) { // they stay mapped while the merge reads them
                    Set<Long> all = new HashSet<>();
                    for (TableInfo t : tables.infos()) {
                        all.add(t.number());
                    }
                    return job.run(tables, all);
                } finally {
                    schedule(); // a round that stopped for this one goes on, with the flushes since
                }
            });
        } catch (RejectedExecutionException e) {
            majorsWaiting.decrementAndGet();
            throw new IOException("storage engine is closed");
        }
        try {
            return done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a " + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CorruptionException c) {
                try (T tables = host.acquireTables()) {
                    quarantineOnThread(tables, c);
                }
                throw c;
            }
            if (e.getCause() instanceof InsufficientSpaceException no) {
                throw no; // refused before it began: no error of the engine's
            }
            if (e.getCause() instanceof IOException io) {
                host.backgroundError();
                throw io;
            }
            throw new IOException(what + " failed", e.getCause());
        }
    }

    /** Runs {@link Host#quarantine} on the compaction thread and waits for it. */
    private void quarantineOnThread(T tables, CorruptionException c) throws IOException {
        try {
            thread.submit(() -> host.quarantine(tables, c)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while quarantining");
        } catch (ExecutionException | RejectedExecutionException e) {
            throw new IOException("quarantine of " + c.file() + " failed", e);
        }
    }
}
