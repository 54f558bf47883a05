package io.ringbase.storage.lsm.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How the storage engine touches the file system: every file it writes is created or opened, renamed,
 * linked, deleted and fsynced (with its directory) through one of these, and every directory it makes
 * is created here. The idea is LevelDB's {@code Env} and
 * Pebble's {@code vfs.FS}: one seam for tests to make the Nth operation fail or be slow
 * ({@code FaultInjectingFileIo} in the tests) and to record what reached the disk.
 *
 * <p>Reads of immutable files (SSTable mappings, WAL replay, the manifest) go straight to the file
 * system: their faults are reported as {@link io.ringbase.storage.CorruptionException} or
 * {@link IOException} already. Implementations must be thread-safe.
 */
public interface FileIo {

    /** The real file system: plain {@link FileChannel}s and {@link java.nio.file.Files}; no wrapping. */
    FileIo DISK = new DiskFileIo();

    /**
     * Opens {@code file} for writing (and reading if asked) with {@code options}, as
     * {@link FileChannel#open(Path, java.nio.file.OpenOption...)}. With {@link StandardOpenOption#CREATE_NEW}
     * or {@link StandardOpenOption#CREATE} this is a file creation: its directory entry is durable only
     * after {@link #syncDirectory} of its directory.
     *
     * @throws java.nio.file.FileAlreadyExistsException with {@code CREATE_NEW} if {@code file} exists
     * @throws IOException if the file cannot be opened (EMFILE, ENOSPC, EIO...)
     */
    FileChannel open(Path file, StandardOpenOption... options) throws IOException;

    /**
     * Renames {@code from} to {@code to} atomically, replacing {@code to} if it exists
     * ({@code rename(2)}); durable after {@link #syncDirectory} of the directory.
     *
     * @throws IOException if the rename failed; {@code from} is then unchanged
     */
    void rename(Path from, Path to) throws IOException;

    /**
     * Deletes {@code file} if it exists ({@code unlink(2)}); durable after {@link #syncDirectory}.
     *
     * @return whether it existed
     * @throws IOException if it exists and could not be deleted
     */
    boolean delete(Path file) throws IOException;

    /**
     * Creates directory {@code dir} ({@code mkdir(2)}); its entry is durable only after
     * {@link #syncDirectory} of its parent.
     *
     * @throws java.nio.file.FileAlreadyExistsException if {@code dir} exists
     * @throws IOException if it cannot be created (ENOSPC, EIO, a missing parent...)
     */
    void createDirectory(Path dir) throws IOException;

    /**
     * Creates {@code link}, a hard link to the existing file {@code existing} ({@code link(2)}); durable
     * after {@link #syncDirectory} of the link's directory.
     *
     * @throws java.nio.file.FileAlreadyExistsException if {@code link} exists
     * @throws IOException if the link cannot be made
     */
    void link(Path link, Path existing) throws IOException;

    /**
     * Creates directory {@code dir} and every missing parent durably through {@code io}: each one created is followed by an
     * fsync of the directory that holds it, outermost first, so that a power loss cannot drop a directory
     * whose files were fsynced (ext4 and XFS make a new entry durable only with its directory's fsync). An
     * existing {@code dir} is left as it is, with no fsync.
     *
     * @throws IOException if a directory cannot be created or a parent's fsync failed
     */
    static void createDirectories(FileIo io, Path dir) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path d = dir.toAbsolutePath(); d != null && !Files.isDirectory(d); d = d.getParent()) {
            missing.push(d);
        }
        for (Path d : missing) {
            try {
                io.createDirectory(d);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(d)) {
                    throw e;
                } // made meanwhile by another thread: still fsync its parent, the other may not have yet
            }
            io.syncDirectory(d.getParent());
        }
    }

    /**
     * fsyncs directory {@code dir}, making the creations, renames and deletions in it durable.
     *
     * @throws IOException if the directory cannot be opened or the fsync failed
     */
    void syncDirectory(Path dir) throws IOException;
}
