package io.ringbase.storage.lsm;

import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.storage.lsm.View.Frozen;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.compaction.CompactionScheduler;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.memtable.Memtable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flushes switched-out memtables to SSTables on the engine's flush thread (RocksDB's {@code FlushJob}):
 * writes the table, publishes a view and manifest that name it and advance the WAL replay point, gives
 * back the engine's reference to the memtable, and only then deletes the flushed WAL segment. A failed
 * flush is retried by itself with backoff; meanwhile writers that would wait for it fail at once with
 * its cause. A flush has worked once its view is published: a failed delete of the flushed segment after
 * that is retried in the background ({@link ObsoleteFiles}), never reported as a failing flush, which
 * would keep the node unwritable with nothing left to flush. Also the explicit {@link #flush()}, which
 * switches out the active memtable and waits.
 *
 * <p>Concurrency: {@link #flushPending()} runs on the flush thread only, which owns the table written by
 * a failed attempt; {@link #flush()} may be called from any thread.
 */
final class Flusher {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    /** Nice value of the flush thread: below requests, above compaction (writers wait for flushes). */
    static final int NICE = 5;
    /** A failed flush is retried after this many ms, doubling up to {@link #RETRY_MAX_MS}. */
    static final long RETRY_MIN_MS = 50;
    /** Longest wait between flush retries, ms: writes resume within about this long of a fault clearing. */
    static final long RETRY_MAX_MS = 1000;

    private final LsmOptions options;
    private final Path dir;
    private final TableFiles files;
    private final StatePublisher state;
    private final WalRotation rotation;
    private final EngineHealth health;
    private final EngineCounters counters;
    private final CompactionScheduler<?> compaction;

    /** Flush thread only: a table written for {@link #flushedFor} whose publish failed, reused on retry. */
    private LiveTable flushedTable;

    private Frozen flushedFor;

    /** Deletes the WAL segment of a flushed memtable, retrying in the background if that fails. */
    private final ObsoleteFiles obsolete;

    Flusher(
            LsmOptions options,
            Path dir,
            TableFiles files,
            StatePublisher state,
            WalRotation rotation,
            EngineHealth health,
            EngineCounters counters,
            CompactionScheduler<?> compaction,
            ObsoleteFiles obsolete) {
        this.options = options;
        this.dir = dir;
        this.files = files;
        this.state = state;
        this.rotation = rotation;
        this.health = health;
        this.counters = counters;
        this.compaction = compaction;
        this.obsolete = obsolete;
    }

    /**
     * {@link LsmEngine#flush()}: switches out a non-empty active memtable and waits until nothing waits for
     * a flush. The active memtable is read from a pinned view: a writer may switch it out and the flusher
     * free it meanwhile.
     *
     * @throws IOException if the engine has closed, a flush failed (its cause) or timed out
     */
    void flush() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
        awaitNoImmutables(deadline);
        View v = state.acquireOpen();
        try {
            Memtable current = v.active();
            if (!current.isEmpty()) {
                rotation.switchTo(rotation.takeSpare(true), current); // does nothing unless still active
            }
        } finally {
            v.release();
        }
        awaitNoImmutables(deadline);
    }

    /**
     * Flushes every write made before the call and waits for that, but not for the memtables of writes
     * made since, as {@link #flush()} does: under a steady write load there may be no moment with nothing
     * waiting for a flush. For a cleanup, whose merge must see every write acknowledged before it.
     *
     * @throws StoreBusyException if that took longer than the flush stall timeout
     * @throws IOException if the engine closed, or a flush fails (its cause)
     */
    void flushWritesSoFar() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
        String timeout = "flush did not finish in " + options.flushStallTimeoutMs() + " ms";
        Set<Memtable> pending = Collections.newSetFromMap(new IdentityHashMap<>()); // compared by identity only
        Memtable active;
        boolean activeEmpty;
        View now = state.acquireOpen(); // pinned: the active memtable may be switched out and freed meanwhile
        try {
            active = now.active();
            activeEmpty = active.isEmpty();
            for (Frozen f : now.immutables()) {
                pending.add(f.memtable());
            }
        } finally {
            now.release();
        }
        if (!activeEmpty) {
            pending.add(active);
            while (state.current().active() == active) { // switched out by us, or by a writer that filled it
                if (health.closing()) {
                    throw new IOException("storage engine is closed");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new StoreBusyException(timeout);
                }
                state.awaitFlushes(
                        () -> state.current().active() == active
                                && !state.current().immutables().isEmpty(),
                        deadline,
                        timeout);
                rotation.switchTo(rotation.takeSpare(true), active); // does nothing unless still active
            }
        }
        state.awaitFlushes(
                () -> {
                    for (Frozen f : state.current().immutables()) {
                        if (pending.contains(f.memtable())) {
                            return true;
                        }
                    }
                    return false;
                },
                deadline,
                timeout);
    }

    private void awaitNoImmutables(long deadlineNanos) throws IOException {
        state.awaitFlushes(
                () -> !state.current().immutables().isEmpty(),
                deadlineNanos,
                "flush did not finish in " + options.flushStallTimeoutMs() + " ms");
    }

    /**
     * Flush thread: flushes switched-out memtables, oldest first, retrying a failed flush by itself
     * after {@value #RETRY_MIN_MS} ms, doubling up to {@value #RETRY_MAX_MS} ms (writers that
     * would wait for it fail at once meanwhile, with the cause); gives up only when the engine closes
     * (the WAL keeps the data). Then rolls away from a poisoned WAL segment, if any.
     */
    void flushPending() {
        long backoffMs = RETRY_MIN_MS;
        while (true) {
            List<Frozen> imms = state.current().immutables();
            if (imms.isEmpty()) {
                break;
            }
            try {
                flushOne(imms.getFirst());
                backoffMs = RETRY_MIN_MS;
                flushingWorks();
            } catch (IOException | RuntimeException | Error e) {
                counters.backgroundErrors.increment();
                StorageFaultException failure = new StorageFaultException(
                        "flush of WAL segment " + imms.getFirst().walNumber(), e);
                boolean first = health.flushFailure() == null;
                health.flushFailure(failure);
                state.signalFlushWaiters();
                if (first) {
                    log.error(
                            "flush of WAL segment {} failed; retrying every {}-{} ms until it works (writes that "
                                    + "need room fail meanwhile)",
                            imms.getFirst().walNumber(),
                            RETRY_MIN_MS,
                            RETRY_MAX_MS,
                            e);
                } else {
                    log.warn(
                            "flush of WAL segment {} failed again: {}",
                            imms.getFirst().walNumber(),
                            failure.getMessage());
                }
                if (health.closing()) {
                    return; // the WAL segments keep the data for the next start
                }
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(2 * backoffMs, RETRY_MAX_MS);
            }
        }
        flushingWorks(); // nothing waits for a flush: no failure to report, whichever way the list emptied
        rotation.rollIfPoisoned();
        compaction.schedule();
    }

    /** Clears a reported flush failure: the memtable it was about is flushed, or none waits. */
    private void flushingWorks() {
        if (health.flushFailure() != null) {
            health.flushFailure(null);
            log.info("flushing works again");
        }
    }

    private void flushOne(Frozen frozen) throws IOException {
        long started = System.nanoTime();
        Memtable mt = frozen.memtable();
        long memtableBytes = mt.sizeBytes();
        if (!frozen.equals(flushedFor)) { // equal: the same Memtable object, same WAL
            // a table written by an attempt whose publish failed is reused: retries leave no orphans
            flushedTable = mt.isEmpty() ? null : files.write(mt);
            flushedFor = frozen;
        }
        LiveTable table = flushedTable;
        state.whilePublishLocked(() -> state.publish(
                v -> {
                    List<Frozen> imms = new ArrayList<>(v.immutables());
                    imms.remove(frozen);
                    List<LiveTable> tables = new ArrayList<>(v.tables());
                    if (table != null) {
                        tables.add(table);
                    }
                    return new View(v.active(), v.activeWalNumber(), imms, tables);
                },
                () -> {
                    // counted before flush()'s callers wake, so a flush they waited for is in the figures they read
                    counters.flushes.increment();
                    counters.flushBytesIn.add(memtableBytes);
                    if (table != null) {
                        counters.flushBytesOut.add(table.reader().fileBytes());
                    }
                }));
        // Published: the flush has worked. Nothing below may fail it, or the node would be reported unwritable
        // with its memtable flushed and no later flush due to clear that.
        flushedFor = null;
        flushedTable = null;
        if (table != null) {
            table.reader().close(); // the new view holds the table now
        }
        obsolete.delete(FileNames.wal(dir, frozen.walNumber()), "the WAL segment of a flushed memtable");
        if (table != null) {
            log.info(
                    "flushed memtable ({} bytes) to {} ({} entries, {} bytes) in {} ms",
                    memtableBytes,
                    table.reader().path().getFileName(),
                    table.reader().entryCount(),
                    table.reader().fileBytes(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    /** At close, once the flush thread has stopped: closes a table written but never published (no view holds it). */
    void releaseUnpublished() {
        if (flushedTable != null) {
            flushedTable.reader().close();
            flushedTable = null;
        }
    }
}
