package io.ringbase.storage.lsm;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.InsufficientSpaceException;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.lsm.View.Frozen;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.compaction.Cleanup;
import io.ringbase.storage.lsm.compaction.CompactionPicker;
import io.ringbase.storage.lsm.compaction.CompactionPriority;
import io.ringbase.storage.lsm.compaction.CompactionRateLimiter;
import io.ringbase.storage.lsm.compaction.CompactionScheduler;
import io.ringbase.storage.lsm.compaction.Compactor;
import io.ringbase.storage.lsm.compaction.TableInfo;
import io.ringbase.storage.lsm.compaction.TombstonePurge;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.ManifestNotDurableException;
import io.ringbase.storage.lsm.sstable.SstableReader;
import io.ringbase.storage.lsm.sstable.SstableSummary;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge of picked SSTables into one and its publication (RocksDB's {@code CompactionJob}): the
 * engine side of {@link CompactionScheduler}, which decides when and what. Runs on the compaction thread.
 */
final class CompactionJob implements CompactionScheduler.Host<CompactionJob.Retained> {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    /** Live tables retained for a merge, without their view's memtables ({@link StatePublisher#acquireTables()}). */
    record Retained(List<LiveTable> tables) implements CompactionScheduler.LiveTables {
        /** Numbers, sizes and footer counts of the tables, and their files' modification times (a stat each). */
        @Override
        public List<TableInfo> infos() {
            List<TableInfo> infos = new ArrayList<>(tables.size());
            for (LiveTable t : tables) {
                infos.add(TableInfo.of(t.number(), t.reader(), writtenAtMs(t.reader())));
            }
            return infos;
        }

        /**
         * When {@code r}'s file was written, Unix epoch ms: its modification time (an SSTable is never
         * written after its rename), as Cassandra dates an SSTable; {@link Long#MAX_VALUE} if unknown.
         */
        private static long writtenAtMs(SstableReader r) {
            try {
                return Files.getLastModifiedTime(r.path()).toMillis();
            } catch (IOException | RuntimeException e) {
                return Long.MAX_VALUE; // e.g. deleted by a compaction meanwhile: no longer a candidate anyway
            }
        }

        @Override
        public void close() {
            StatePublisher.releaseTables(tables);
        }
    }

    private final LsmOptions options;
    private final Path dir;
    private final TableFiles files;
    private final StatePublisher state;
    private final EngineHealth health;
    private final EngineCounters counters;
    private final Quarantine quarantine;
    /** The compaction thread's priority, raised while compaction is behind; compaction thread only. */
    private final CompactionPriority priority;
    /** Paces the merges' writes; shared by the compaction thread and cleanups. */
    private final CompactionRateLimiter rate;
    /** Counts the tables still to merge, for {@link #priority}. */
    private final CompactionPicker picker;
    /** Deletes the inputs once the output is published. */
    private final ObsoleteFiles obsolete;

    CompactionJob(
            LsmOptions options,
            Path dir,
            TableFiles files,
            StatePublisher state,
            EngineHealth health,
            EngineCounters counters,
            Quarantine quarantine,
            CompactionPriority priority,
            CompactionRateLimiter rate,
            CompactionPicker picker,
            ObsoleteFiles obsolete) {
        this.options = options;
        this.picker = picker;
        this.obsolete = obsolete;
        this.dir = dir;
        this.files = files;
        this.state = state;
        this.health = health;
        this.counters = counters;
        this.quarantine = quarantine;
        this.priority = priority;
        this.rate = rate;
    }

    @Override
    public Retained acquireTables() {
        return new Retained(state.acquireTables());
    }

    @Override
    public boolean quarantine(Retained tables, CorruptionException damage) throws IOException {
        return quarantine.quarantine(tables.tables(), damage);
    }

    @Override
    public void backgroundError() {
        counters.backgroundErrors.increment();
    }

    /**
     * Merges the tables of {@code retained} whose numbers are in {@code pick} into one and publishes it.
     *
     * @return the output's file number, or -1 if nothing was kept
     * @throws InsufficientSpaceException before anything is written, see {@link #requireRoomToCompact}
     */
    @Override
    public long compact(Retained retained, Set<Long> pick) throws IOException {
        long started = System.nanoTime();
        Merged merged = merge(retained.tables(), pick, droppable(pick));
        log.info(
                "compacted {} SSTables ({} bytes) into {} ({} entries, {} bytes) in {} ms ({} ms of it paced, "
                        + "compaction rate now {} bytes/s)",
                pick.size(),
                merged.inputBytes(),
                merged.output(),
                merged.entryCount(),
                merged.outputBytes(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                TimeUnit.NANOSECONDS.toMillis(merged.pacedNanos()),
                rate.rateBytesPerSecond());
        return merged.number();
    }

    /**
     * Merges as {@link #compact}, leaving out every entry of the keys {@code keep} rejects. The caller
     * logs it ({@code LsmEngine.cleanup}, with the flush before it).
     */
    @Override
    public Cleanup.Result cleanup(Retained retained, Set<Long> pick, KeyFilter keep) throws IOException {
        if (pick.isEmpty()) {
            return Cleanup.Result.NOTHING;
        }
        LongAdder dropped = new LongAdder();
        Merged merged = merge(retained.tables(), pick, Cleanup.droppingRejected(keep, droppable(pick), dropped));
        return new Cleanup.Result(dropped.sum(), merged.inputBytes(), merged.outputBytes());
    }

    /**
     * What {@link #merge} wrote: input and output file bytes, the output's entries, file name and number
     * (-1 for no output).
     */
    private record Merged(
            long inputBytes, long outputBytes, long entryCount, String output, long number, long pacedNanos) {}

    /**
     * Merges the tables of {@code tables} numbered in {@code pick} into one, leaving out what
     * {@code droppable} says, publishes it in their place and deletes them: a crash before the manifest
     * names the output leaves the inputs live (the output is deleted as unlisted), after, the output.
     */
    private Merged merge(List<LiveTable> tables, Set<Long> pick, Compactor.Droppable droppable) throws IOException {
        List<SstableReader> inputs = new ArrayList<>();
        for (LiveTable t : tables) {
            if (pick.contains(t.number())) {
                inputs.add(t.reader());
            }
        }
        long inputBytes = bytesOf(tables, pick);
        requireRoomToCompact(pick.size(), inputBytes);
        long number = files.nextNumber();
        Path tmp = FileNames.sstableTmp(dir, number);
        SstableSummary summary;
        long[] paced = {0, 0}; // bytes of the output already paced, ns waited for the rate
        try {
            summary = Compactor.compact(options.fileIo(), inputs, tmp, droppable, written -> {
                int waiting = state.current().compactionBacklog(picker);
                priority.adjust(waiting); // behind: at the flush's priority
                try {
                    paced[1] += rate.pace(written - paced[0], priority.behind(waiting)); // behind: no wait
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("compaction interrupted while paced");
                }
                paced[0] = written;
                return health.closing();
            });
        } catch (IOException | RuntimeException e) {
            files.deleteQuietly(tmp, e);
            throw e;
        }
        LiveTable output = null;
        if (summary.entryCount() > 0) {
            output = files.install(number, tmp);
        } else {
            options.fileIo().delete(tmp);
        }
        LiveTable added = output;
        state.whilePublishLocked(() -> {
            try {
                publishCompaction(pick, added);
            } catch (ManifestNotDurableException e) {
                if (added != null) {
                    added.reader().close(); // no view holds it
                }
                throw e; // the manifest in force names the output: it stays (a restart deletes it if unlisted)
            } catch (IOException | RuntimeException e) {
                if (added != null) {
                    added.reader().close(); // no view holds it
                    files.deleteQuietly(added.reader().path(), e); // in no manifest: an orphan otherwise
                }
                throw e;
            }
        });
        if (added != null) {
            added.reader().close(); // the new view holds the table now
        }
        long outputBytes = output == null ? 0 : output.reader().fileBytes();
        counters.compactions.increment();
        counters.compactionBytesIn.add(inputBytes);
        counters.compactionBytesOut.add(outputBytes);
        for (long n : pick) {
            // Readers that still hold an older view keep the inputs mapped; the last one to finish unmaps
            // them (View.release), and the space of the deleted files comes back then.
            obsolete.delete(FileNames.sstable(dir, n), "which a compaction replaced"); // retried if it fails
        }
        return new Merged(
                inputBytes,
                outputBytes,
                summary.entryCount(),
                output == null
                        ? "nothing"
                        : output.reader().path().getFileName().toString(),
                output == null ? -1 : number,
                paced[1]);
    }

    /** The file bytes of those of {@code tables} whose numbers are in {@code pick}: a merge's input. */
    private static long bytesOf(List<LiveTable> tables, Set<Long> pick) {
        long bytes = 0;
        for (LiveTable t : tables) {
            if (pick.contains(t.number())) {
                bytes += t.reader().fileBytes();
            }
        }
        return bytes;
    }

    /**
     * Checks that the data directory's file system has room for a compaction's output (at most the size
     * of its inputs) and, besides, for two memtable flushes, so that a compaction never takes the space
     * that flushes, and so writes, need (Cassandra checks free space before a compaction likewise). Seen
     * without it: with a full disk just relieved, a merge filled the freed space and the next flush failed.
     * An unreadable file store does not hold compaction back.
     *
     * @throws InsufficientSpaceException if there is not that much room
     */
    private void requireRoomToCompact(int tableCount, long inputBytes) throws InsufficientSpaceException {
        long usable;
        try {
            usable = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return;
        }
        long needed = inputBytes + 2 * options.memtableBytes();
        if (usable < needed) {
            throw new InsufficientSpaceException(
                    "compaction of " + tableCount + " SSTables (" + inputBytes + " bytes)", needed, usable);
        }
    }

    /** Holds publishLock: publishes a compaction of {@code pick} into {@code added} (or into nothing). */
    private void publishCompaction(Set<Long> pick, LiveTable added) throws IOException {
        state.publish(now -> {
            List<LiveTable> tables = new ArrayList<>();
            for (LiveTable t : now.tables()) {
                if (!pick.contains(t.number())) {
                    tables.add(t);
                }
            }
            if (added != null) {
                tables.add(added);
            }
            return now.withTables(tables);
        });
    }

    /**
     * Which entries a compaction of the tables {@code pick} may drop ({@link TombstonePurge}). "Other
     * sources" are read from the current view at each check (tables not being compacted, by their Bloom
     * filters, and memtables), so a memtable that is flushed while the compaction runs is still seen, as a
     * memtable or as its new table.
     */
    private Compactor.Droppable droppable(Set<Long> pick) {
        return TombstonePurge.rule(options.wallClockMs().getAsLong(), options.tombstoneGraceMs(), key -> {
            View current = state.acquire();
            try {
                for (LiveTable t : current.tables()) {
                    if (!pick.contains(t.number()) && t.reader().mightContain(key)) {
                        return true;
                    }
                }
                if (current.active().find(key) != 0) {
                    return true;
                }
                for (Frozen f : current.immutables()) {
                    if (f.memtable().find(key) != 0) {
                        return true;
                    }
                }
                return false;
            } finally {
                current.release();
            }
        });
    }
}
