package io.ringbase.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Pattern;

/**
 * A data directory held by one engine: takes the OS lock on {@value #LOCK} so that two nodes never
 * share a directory. Also names what every engine keeps there alike (docs/format.md, section 1): the
 * lock file and the snapshots' directories. The files of each engine are named by the engine
 * ({@code io.ringbase.storage.lsm.manifest.FileNames}).
 */
public final class DataDirectory implements AutoCloseable {

    /** Name of the lock file. Do not change: a node of an older version must see the lock. */
    public static final String LOCK = "LOCK";
    /** Subdirectory of the data directory that holds snapshots, one directory per name. */
    public static final String SNAPSHOTS = "snapshots";

    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}");

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private DataDirectory(Path dir, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Creates {@code dir} if needed (durably, {@link #createDurably}) and locks it.
     *
     * @throws DirectoryLockedException if another process holds the lock
     * @throws IOException if the directory cannot be created or its lock file opened
     */
    public static DataDirectory lock(Path dir) throws IOException {
        createDurably(dir);
        FileChannel ch = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            throw new DirectoryLockedException(dir);
        }
        return new DataDirectory(dir, ch, lock);
    }

    public Path path() {
        return dir;
    }

    /**
     * Creates directory {@code dir} and every missing parent, each followed by an fsync of the directory
     * holding it, outermost first: a new directory's entry survives a power loss only so (ext4, XFS), and
     * with it the fsynced files inside. An existing {@code dir} is left as it is. The LSM engine does the
     * same through its file seam ({@code FileIo.createDirectories}) before it locks its directory.
     *
     * @throws IOException if a directory cannot be created or a parent's fsync failed
     */
    public static void createDurably(Path dir) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path d = dir.toAbsolutePath(); d != null && !Files.isDirectory(d); d = d.getParent()) {
            missing.push(d);
        }
        for (Path d : missing) {
            try {
                Files.createDirectory(d);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(d)) {
                    throw e;
                } // made meanwhile by another thread: still fsync its parent
            }
            fsync(d.getParent());
        }
    }

    /**
     * fsyncs a directory so that file creations, renames and deletions in it are durable: the
     * durability point after creating a WAL segment and after installing an SSTable or manifest.
     */
    public static void fsync(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Replaces {@code file} with {@code bytes} so that a crash leaves the old content or the new: writes
     * {@code <file>.tmp} (creating the parent directory if needed), fsyncs it, renames it over {@code file}
     * and fsyncs the directory.
     *
     * @throws IOException if any step fails ({@code file} is then unchanged, a {@code .tmp} may remain)
     */
    public static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsync(dir);
    }

    /**
     * Deletes {@code dir} and everything under it, deepest first; nothing if it does not exist. For
     * directories only this process writes to (a scratch node's, a restore's staging copy).
     *
     * @throws IOException if a file or directory cannot be deleted (what was deleted stays deleted)
     */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * The directory of snapshot {@code name} in data directory {@code dir}: {@code <dir>/snapshots/<name>}.
     *
     * @throws IllegalArgumentException unless the name is 1 to 64 of {@code A-Z a-z 0-9 . _ -}, not
     *                                  starting with a dot
     */
    public static Path snapshot(Path dir, String name) {
        if (!SNAPSHOT_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "snapshot name '" + name + "' must be 1 to 64 of A-Z a-z 0-9 . _ - " + "and not start with a dot");
        }
        return dir.resolve(SNAPSHOTS).resolve(name);
    }

    /** Releases the lock. */
    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }
}
