package io.ringbase.storage.lsm;

import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.Manifest;
import io.ringbase.storage.lsm.manifest.ManifestState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots of the LSM engine's data directory, as Cassandra's {@code nodetool snapshot}: hard links to
 * the live SSTables and a manifest naming them. Thread-safe: a snapshot holds {@code publishLock}.
 */
final class Snapshots {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    private final Path dir;
    private final FileIo io;
    private final TableFiles files;
    private final StatePublisher state;
    private final Flusher flusher;

    Snapshots(Path dir, TableFiles files, StatePublisher state, Flusher flusher) {
        this.dir = dir;
        this.io = files.io();
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
     * the original. Every step goes through the engine's {@link FileIo}, each new directory and link
     * made durable by an fsync of the directory holding it; the manifest, written last, marks the
     * snapshot complete. If any step fails, what was made of the snapshot is removed again, so that no
     * half snapshot is left to be mistaken for one (a directory without a manifest, as a crash may
     * leave, is incomplete).
     *
     * @return the snapshot's directory and tables
     * @throws IllegalArgumentException if {@code name} is not a valid snapshot name
     * @throws java.nio.file.FileAlreadyExistsException if a snapshot of that name exists
     * @throws IOException if a step failed (the snapshot's directory is removed again)
     */
    Snapshot take(String name) throws IOException {
        Path target = DataDirectory.snapshot(dir, name);
        flusher.flush();
        return state.whilePublishLocked(() -> {
            FileIo.createDirectories(io, target.getParent());
            io.createDirectory(target);
            try {
                List<Long> numbers = new ArrayList<>();
                long bytes = 0;
                for (LiveTable t : state.current().tables()) {
                    io.link(FileNames.sstable(target, t.number()), FileNames.sstable(dir, t.number()));
                    numbers.add(t.number());
                    bytes += t.reader().fileBytes();
                }
                numbers.sort(null);
                long next = files.peekNextNumber();
                Manifest.write(io, target, new ManifestState(next, next, numbers)); // fsyncs it and the links
                io.syncDirectory(target.getParent());
                return new Snapshot(target, numbers.size(), bytes);
            } catch (IOException | RuntimeException e) {
                removeHalfMade(target, e);
                throw e;
            }
        });
    }

    /** Deletes the files of the failed snapshot {@code target} and the directory, adding failures to {@code primary}. */
    private void removeHalfMade(Path target, Throwable primary) {
        try {
            List<Path> made;
            try (Stream<Path> listing = Files.list(target)) {
                made = listing.toList();
            }
            for (Path p : made) {
                io.delete(p);
            }
            io.delete(target);
            io.syncDirectory(target.getParent());
        } catch (IOException | RuntimeException e) {
            primary.addSuppressed(e);
            log.warn(
                    "snapshot {} failed and its directory {} could not be removed ({}); delete it by hand: without "
                            + "a MANIFEST it is not a complete snapshot",
                    target.getFileName(),
                    target,
                    e.toString());
        }
    }
}
