package io.ringbase.storage.lsm;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.Entry;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.Manifest;
import io.ringbase.storage.lsm.manifest.ManifestState;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.sstable.BlockCache;
import io.ringbase.storage.lsm.sstable.PinnedSections;
import io.ringbase.storage.lsm.wal.WalReader;
import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a locked data directory to a clean state on start, by the reader rules of docs/format.md
 * (section 5): deletes half-written files, opens the SSTables the manifest lists, deletes unlisted
 * ones, replays the WAL segments from the manifest's replay point into a new SSTable, and writes a
 * manifest that names it and the WAL segment to start with.
 */
final class Recovery {

    private static final Logger log = LoggerFactory.getLogger(Recovery.class);

    /**
     * @param files     file numbering for the engine
     * @param tables    the live tables, including one holding the replayed WAL records
     * @param walNumber the number of the WAL segment to create next
     */
    record Result(TableFiles files, List<LiveTable> tables, long walNumber) {}

    private Recovery() {}

    /**
     * Recovers the directory. The tables of the result hold their opener's reference ({@code
     * SstableReader#open}), which the caller gives back once a view holds them.
     *
     * @throws CorruptionException if the manifest, a listed SSTable or a WAL segment is damaged, or a
     *                             listed SSTable is missing; nothing is deleted or dropped then
     */
    static Result run(
            FileIo io,
            DataDirectory dir,
            long memtableBytes,
            WalRecoveryMode walRecovery,
            BlockCache cache,
            PinnedSections pinned)
            throws IOException {
        Path path = dir.path();
        deleteTemporaries(path);
        NavigableSet<Long> sstFiles = numbers(path, FileNames.Kind.SSTABLE);
        NavigableSet<Long> walFiles = numbers(path, FileNames.Kind.WAL);
        ManifestState manifest = Manifest.read(path).orElse(null);
        if (manifest == null) {
            if (!sstFiles.isEmpty()) {
                throw new CorruptionException(
                        FileNames.manifest(path),
                        -1,
                        "missing, but " + sstFiles.size()
                                + " SSTables are present; refusing to start rather than guess which are live");
            }
            manifest = ManifestState.empty();
        }
        long maxSeen = Math.max(sstFiles.isEmpty() ? 0 : sstFiles.last(), walFiles.isEmpty() ? 0 : walFiles.last());
        TableFiles files = new TableFiles(io, path, Math.max(manifest.nextFileNumber(), maxSeen + 1), cache, pinned);

        List<LiveTable> tables = new ArrayList<>();
        try {
            return recover(io, dir, files, manifest, sstFiles, walFiles, tables, memtableBytes, walRecovery);
        } catch (IOException | RuntimeException | Error e) {
            for (LiveTable t : tables) {
                t.reader().close(); // the opener's references: nothing else holds these tables yet
            }
            throw e;
        }
    }

    /** Deletes the files in {@code dir} left half-written by a crash ({@code *.tmp}); returns how many. */
    private static int deleteTemporaries(Path dir) throws IOException {
        int n = 0;
        for (Path p : list(dir)) {
            Optional<FileNames.Parsed> parsed = FileNames.parse(p.getFileName().toString());
            if (parsed.isPresent() && parsed.get().kind() == FileNames.Kind.TEMPORARY) {
                log.info("deleting {} left by an interrupted write", p.getFileName());
                Files.deleteIfExists(p);
                n++;
            }
        }
        return n;
    }

    /** File numbers of the files of {@code kind} in {@code dir}, ascending. */
    private static NavigableSet<Long> numbers(Path dir, FileNames.Kind kind) throws IOException {
        TreeSet<Long> out = new TreeSet<>();
        for (Path p : list(dir)) {
            FileNames.parse(p.getFileName().toString())
                    .filter(parsed -> parsed.kind() == kind)
                    .ifPresent(parsed -> out.add(parsed.number()));
        }
        return out;
    }

    private static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            ds.forEach(out::add);
        }
        return out;
    }

    private static Result recover(
            FileIo io,
            DataDirectory dir,
            TableFiles files,
            ManifestState manifest,
            NavigableSet<Long> sstFiles,
            NavigableSet<Long> walFiles,
            List<LiveTable> tables,
            long memtableBytes,
            WalRecoveryMode walRecovery)
            throws IOException {
        Path path = dir.path();
        for (long number : manifest.liveTables()) {
            Path file = FileNames.sstable(path, number);
            if (!Files.exists(file)) {
                throw new CorruptionException(file, -1, "listed in the manifest but missing");
            }
            tables.add(new LiveTable(number, files.open(file)));
        }
        Set<Long> live = new HashSet<>(manifest.liveTables());
        for (long number : sstFiles) {
            if (!live.contains(number)) {
                log.warn(
                        "deleting {}: not in the manifest (left by an interrupted flush or compaction)",
                        FileNames.sstable(path, number).getFileName());
                io.delete(FileNames.sstable(path, number));
            }
        }

        // Replayed records go through memtables of the configured size, each flushed when full, so a long
        // WAL (many segments, or one a failed switch let grow) never needs more memory than a running node.
        Replay replay = new Replay(files, tables, memtableBytes);
        List<Long> replayed = new ArrayList<>();
        LogOrder order = new LogOrder(manifest.walReplayFrom());
        try {
            for (long number : walFiles) {
                Path file = FileNames.wal(path, number);
                if (number < manifest.walReplayFrom()) {
                    io.delete(file);
                    continue;
                }
                replayed.add(number); // deleted once the new manifest is written, replayed or dropped
                if (!order.follows(file)) {
                    continue;
                }
                WalReader.ReplayResult r;
                try {
                    r = WalReader.replay(file, replay::put, walRecovery);
                } catch (java.io.UncheckedIOException e) {
                    throw e.getCause();
                }
                log.info(
                        "replayed {} records from {}{}",
                        r.records(),
                        file.getFileName(),
                        r.tornTail() ? " (torn tail ignored)" : "");
                order.replayed(number, r);
            }
            order.logDropped(path);
            replay.finish();
        } finally {
            replay.release(); // a replay that failed midway: its memtable's native memory
        }
        long walNumber = files.nextNumber();
        Manifest.write(
                io,
                path,
                new ManifestState(
                        files.peekNextNumber(),
                        walNumber,
                        tables.stream().map(LiveTable::number).sorted().toList()));
        for (long number : replayed) {
            io.delete(FileNames.wal(path, number));
        }
        log.info(
                "opened {}: {} SSTables, {} entries recovered from the WAL",
                path.toAbsolutePath(),
                tables.size(),
                replay.entries);
        return new Result(files, tables, walNumber);
    }

    /**
     * Which WAL segments continue the log, so that recovery keeps a prefix of the write history: the first
     * segment that does not, and every one after it, is dropped. A segment with a {@code PREDECESSOR}
     * record continues the log if that segment was flushed already (numbered below the replay point) or
     * was replayed to at least the length the record names; one without (version 1, or the first after
     * an open) if no segment replayed before it ended in a torn tail. This is Pebble's rule that only
     * the last WAL may end torn, made exact by the length: it also catches an earlier segment that lost
     * whole records at a record boundary while the OS's writeback kept a later segment's.
     */
    private static final class LogOrder {
        private final long replayFrom;
        private final Map<Long, Long> validBytes = new HashMap<>();
        private Long torn; // the last replayed segment that ended torn, if any
        private String stopReason;
        private final List<Path> dropped = new ArrayList<>();
        private long droppedBytes;

        LogOrder(long replayFrom) {
            this.replayFrom = replayFrom;
        }

        /** Whether segment {@code file} continues the log; if not, it and every later one are dropped. */
        boolean follows(Path file) throws IOException {
            if (stopReason == null) {
                Optional<WalReader.Predecessor> p = WalReader.predecessor(file);
                if (p.isPresent()) {
                    long before = p.get().number();
                    Long have = validBytes.get(before);
                    if (before >= replayFrom && (have == null || have < p.get().bytes())) {
                        stopReason = FileNames.wal(file.getParent(), before).getFileName() + " holds "
                                + (have == null ? "nothing (it is missing)" : have + " valid bytes")
                                + " where " + file.getFileName() + " follows "
                                + p.get().bytes();
                    }
                } else if (torn != null && Files.size(file) > WalReader.headerBytes()) {
                    stopReason = FileNames.wal(file.getParent(), torn).getFileName()
                            + " ends in a torn tail and is followed by " + file.getFileName();
                }
            }
            if (stopReason != null) {
                dropped.add(file);
                droppedBytes += Files.size(file);
                return false;
            }
            return true;
        }

        void replayed(long number, WalReader.ReplayResult r) {
            validBytes.put(number, r.validBytes());
            if (r.tornTail()) {
                torn = number;
            }
        }

        /** One line for the operator if anything was dropped. */
        void logDropped(Path dir) {
            if (dropped.isEmpty()) {
                return;
            }
            log.warn(
                    "{}: {}; dropping the {} bytes of WAL segments {} so that recovery keeps a prefix of the write "
                            + "history (never a later write without an earlier one). Under --wal-sync periodic "
                            + "this follows a power loss and costs the writes of about one sync interval. Under "
                            + "--wal-sync always it means the disk lost fsynced data: check it",
                    dir.toAbsolutePath(),
                    stopReason,
                    droppedBytes,
                    dropped.stream().map(p -> p.getFileName().toString()).toList());
        }
    }

    /**
     * Fills memtables with replayed records and flushes each to an SSTable when it is full. A memtable is
     * made only for a record to replay: most opens replay nothing (a clean shutdown flushed everything, or
     * the directory is new), and a memtable's slabs are a shared arena, whose close waits for a handshake
     * with every thread of the JVM (10-50 ms at a busy start, once per engine: the data's, the hints',
     * the Paxos state's).
     */
    private static final class Replay {
        private final TableFiles files;
        private final List<LiveTable> tables;
        private final long memtableBytes;
        private @Nullable Memtable memtable;
        long entries;

        Replay(TableFiles files, List<LiveTable> tables, long memtableBytes) {
            this.files = files;
            this.tables = tables;
            this.memtableBytes = memtableBytes;
        }

        /** @throws java.io.UncheckedIOException if a full memtable could not be flushed */
        void put(Entry e) {
            entries++;
            if (memtable == null || !memtable.put(e)) { // none yet, or full
                try {
                    flushMemtable(); // nothing to do if there is none
                } catch (IOException x) {
                    throw new java.io.UncheckedIOException(x);
                }
                memtable = new Memtable(memtableBytes);
                if (!memtable.put(e)) {
                    throw new IllegalStateException("an empty memtable refused an entry");
                }
            }
        }

        /** Flushes what is left; releases the memtable. */
        void finish() throws IOException {
            flushMemtable();
        }

        /** Releases the memtable, if any, unflushed. Idempotent; nothing to do after {@link #finish()}. */
        void release() {
            if (memtable != null) {
                memtable.release();
                memtable = null;
            }
        }

        /** Writes the memtable, if any, to an SSTable and releases it. */
        private void flushMemtable() throws IOException {
            Memtable m = memtable;
            if (m == null) {
                return;
            }
            memtable = null;
            try {
                if (!m.isEmpty()) {
                    tables.add(files.write(m));
                }
            } finally {
                m.release();
            }
        }
    }
}
