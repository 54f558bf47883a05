package io.ringbase.storage.manifest;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data directory held by one engine: takes the OS lock on {@code LOCK} so that two nodes never
 * share a directory, and lists its files by kind ({@link FileNames}).
 */
public final class DataDirectory implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DataDirectory.class);

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private DataDirectory(Path dir, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Creates {@code dir} if needed and locks it.
     *
     * @throws DirectoryLockedException if another process holds the lock
     * @throws IOException if the directory cannot be created or its lock file opened
     */
    public static DataDirectory lock(Path dir) throws IOException {
        Files.createDirectories(dir);
        FileChannel ch = FileChannel.open(FileNames.lock(dir), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
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
     * fsyncs a directory so that file creations, renames and deletions in it are durable: the
     * durability point after creating a WAL segment and after installing an SSTable or manifest.
     */
    public static void fsync(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Deletes files left half-written by a crash ({@code *.tmp}); returns how many. */
    public int deleteTemporaries() throws IOException {
        int n = 0;
        for (Path p : list()) {
            Optional<FileNames.Parsed> parsed = FileNames.parse(p.getFileName().toString());
            if (parsed.isPresent() && parsed.get().kind() == FileNames.Kind.TEMPORARY) {
                log.info("deleting {} left by an interrupted write", p.getFileName());
                Files.deleteIfExists(p);
                n++;
            }
        }
        return n;
    }

    /** File numbers of the files of {@code kind}, ascending. */
    public TreeSet<Long> numbers(FileNames.Kind kind) throws IOException {
        TreeSet<Long> out = new TreeSet<>();
        for (Path p : list()) {
            FileNames.parse(p.getFileName().toString())
                    .filter(parsed -> parsed.kind() == kind)
                    .ifPresent(parsed -> out.add(parsed.number()));
        }
        return out;
    }

    private List<Path> list() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            ds.forEach(out::add);
        }
        return out;
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
