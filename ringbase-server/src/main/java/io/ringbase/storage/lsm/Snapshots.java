package io.ringbase.storage.lsm;

import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.Manifest;
import io.ringbase.storage.lsm.manifest.ManifestState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Snapshots of the LSM engine's data directory, as Cassandra's {@code nodetool snapshot}: hard links to
 * the live SSTables and a manifest naming them. Thread-safe: a snapshot holds {@code publishLock}.
 */
final class Snapshots {

    private final Path dir;
    private final TableFiles files;
    private final StatePublisher state;
    private final Flusher flusher;

    Snapshots(Path dir, TableFiles files, StatePublisher state, Flusher flusher) {
        this.dir = dir;
        this.files = files;
        this.state = state;
        this.flusher = flusher;
    }

    /**
     * Takes a snapshot named {@code name}: flushes, then, under {@code publishLock} (so no flush or
     * compaction changes the live tables meanwhile), hard-links every live SSTable into
     * {@code <data-dir>/snapshots/<name>/} and writes a manifest there naming exactly those tables, with
     * nothing to replay (no WAL segment is part of a snapshot). The directory is then a complete data
     * directory as of the flush: a node started on a copy of it serves that data. SSTables are
     * immutable, so a link shares the file with the live directory at no cost until compaction deletes
     * the original.
     *
     * @return the snapshot's directory and tables
     * @throws IllegalArgumentException if {@code name} is not a valid snapshot name
     * @throws java.nio.file.FileAlreadyExistsException if a snapshot of that name exists
     */
    Snapshot take(String name) throws IOException {
        Path target = DataDirectory.snapshot(dir, name);
        flusher.flush();
        return state.whilePublishLocked(() -> {
            Files.createDirectories(target.getParent());
            Files.createDirectory(target);
            List<Long> numbers = new ArrayList<>();
            long bytes = 0;
            for (LiveTable t : state.current().tables()) {
                Files.createLink(FileNames.sstable(target, t.number()), FileNames.sstable(dir, t.number()));
                numbers.add(t.number());
                bytes += t.reader().fileBytes();
            }
            numbers.sort(null);
            long next = files.peekNextNumber();
            Manifest.write(target, new ManifestState(next, next, numbers)); // fsyncs the file and the directory
            DataDirectory.fsync(target.getParent());
            return new Snapshot(target, numbers.size(), bytes);
        });
    }
}
