package io.ringbase.storage.lsm;

import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.DirectoryLockedException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.Manifest;
import io.ringbase.storage.lsm.manifest.ManifestState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Restores a stopped node's data directory from a snapshot ({@link LsmEngine#snapshot}, a directory of
 * SSTables and a manifest naming them), verified before anything of the node's is touched:
 *
 * <ol>
 *   <li>the data directory's lock is taken, so a running node is refused (and cannot start meanwhile);</li>
 *   <li>the snapshot's manifest and every SSTable it names are copied into {@code <data-dir>.restoring},
 *       each file fsynced;</li>
 *   <li>an engine is opened there and every entry read, which checks every block's checksum; a damaged
 *       table fails the restore and the copy is deleted;</li>
 *   <li>only then is the data directory renamed to {@code <data-dir>.before-restore-<ms>} (kept for the
 *       operator) and the copy renamed into its place, with fsyncs of the parent directory.</li>
 * </ol>
 *
 * A crash before the last step leaves the data directory as it was (and a {@code .restoring} directory,
 * which the next restore deletes); between its two renames, the old data under its new name. Identity,
 * hints and cluster metadata are not part of a snapshot: a restored cluster node starts as a replacement
 * (docs/operations.md, "Backup and restore").
 */
public final class SnapshotRestore {

    /** What a restore did: tables and bytes copied, live entries read back, where the old data went. */
    public record Result(int sstables, long bytes, long liveEntries, Optional<Path> previous) {}

    private SnapshotRestore() {}

    /**
     * Restores {@code snapshot} into {@code dataDir}.
     *
     * @param snapshot a snapshot directory: a manifest and the SSTables it names
     * @param dataDir  the node's data directory (need not exist)
     * @param nowMs    the wall clock, Unix ms, for the name the old data is kept under
     * @return what was restored
     * @throws DirectoryLockedException if a node holds {@code dataDir}
     * @throws NoSuchFileException if {@code snapshot} has no manifest or lacks a table its manifest names
     * @throws io.ringbase.storage.CorruptionException if a table of the snapshot is damaged (nothing of
     *         {@code dataDir} was changed)
     * @throws IOException if a copy, fsync or rename fails
     */
    public static Result restore(Path snapshot, Path dataDir, long nowMs) throws IOException {
        Path data = dataDir.toAbsolutePath().normalize();
        Path source = snapshot.toAbsolutePath().normalize(); // may lie in dataDir: read before it moves
        ManifestState manifest = Manifest.read(source)
                .orElseThrow(() -> new NoSuchFileException(
                        snapshot.resolve(FileNames.MANIFEST).toString(), null, "not a snapshot: no manifest"));
        Path staging = data.resolveSibling(data.getFileName() + ".restoring");
        DataDirectory.deleteTree(staging); // a restore that died before its renames
        Path previous = null;
        boolean exists = Files.isDirectory(data);
        try (DataDirectory _ = exists ? DataDirectory.lock(data) : null) { // held until the swap
            DataDirectory.createDurably(staging);
            long bytes = 0;
            for (long number : manifest.liveTables()) {
                Path table = FileNames.sstable(source, number);
                if (!Files.isRegularFile(table)) {
                    throw new NoSuchFileException(table.toString(), null, "the snapshot's manifest names it");
                }
                bytes += copyDurably(table, FileNames.sstable(staging, number));
            }
            Manifest.write(staging, manifest);
            long live = readEverything(staging);
            if (exists) {
                previous = data.resolveSibling(data.getFileName() + ".before-restore-" + nowMs);
                if (Files.exists(previous)) {
                    throw new FileAlreadyExistsException(previous.toString());
                }
                Files.move(data, previous, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(staging, data, StandardCopyOption.ATOMIC_MOVE);
            DataDirectory.fsync(data.getParent());
            return new Result(manifest.liveTables().size(), bytes, live, Optional.ofNullable(previous));
        } catch (IOException | RuntimeException e) {
            DataDirectory.deleteTree(staging);
            throw e;
        }
    }

    /** Opens an engine on {@code dir} and reads every entry (each block's checksum checked); live entries. */
    private static long readEverything(Path dir) throws IOException {
        long live = 0;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir));
                CloseableIterator<Entry> all = engine.scan(new byte[0], null, false)) {
            while (all.hasNext()) {
                if (!all.next().isTombstone()) {
                    live++;
                }
            }
        } catch (UncheckedIOException e) { // an iterator's read failure, a damaged block among them
            throw e.getCause();
        }
        return live;
    }

    private static long copyDurably(Path from, Path to) throws IOException {
        Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
        try (FileChannel ch = FileChannel.open(to, StandardOpenOption.WRITE)) {
            ch.force(true);
            return ch.size();
        }
    }
}
