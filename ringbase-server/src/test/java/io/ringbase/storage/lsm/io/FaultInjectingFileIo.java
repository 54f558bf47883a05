package io.ringbase.storage.lsm.io;

import io.ringbase.storage.DiskFault;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A {@link FileIo} for tests over the real file system that makes chosen operations fail with ENOSPC,
 * EIO or EMFILE (an {@link IOException} with the C library's message, as the JDK reports them), or be
 * slow, and that can record every mutating operation in order (for crash-state reconstruction, in the
 * manner of ALICE and CrashMonkey). LevelDB's {@code FaultInjectionTestEnv} is the model.
 *
 * <p>Rules: {@link #failNth} fails one operation of a kind (the nth from now, optionally only on files
 * whose name matches); {@link #failAll} fails every such operation until {@link #heal()};
 * {@link #delay} makes each such operation sleep first. Thread-safe.
 */
public final class FaultInjectingFileIo implements FileIo {

    /** The operations that can be made to fail. */
    public enum Op {
        /** Opening a file with CREATE or CREATE_NEW. */
        CREATE,
        /** A {@code write} on a channel opened here. */
        WRITE,
        /** A {@code force} (fsync or fdatasync) on a channel opened here. */
        FORCE,
        RENAME,
        DELETE,
        /** fsync of a directory. */
        SYNC_DIR,
        /** Creating a directory. */
        MKDIR,
        /** Creating a hard link; recorded with the link as path and the existing file as target. */
        LINK
    }

    /**
     * One recorded operation.
     *
     * @param op       what was done
     * @param path     the file (the source of a rename)
     * @param target   the rename's target, else {@code null}
     * @param position file offset of a write
     * @param data     the bytes of a write, else {@code null}
     */
    public record Event(Op op, Path path, Path target, long position, byte[] data) {}

    private record Rule(
            Op op, Predicate<Path> files, DiskFault fault, AtomicLong countdown, boolean sticky, Error error) {}

    private final List<Rule> rules = new ArrayList<>(); // guarded by this
    private final Map<Op, Long> delays = new EnumMap<>(Op.class); // guarded by this
    private final Map<Op, AtomicLong> counts = new EnumMap<>(Op.class);
    private final List<Event> events = new ArrayList<>(); // guarded by this
    private volatile boolean recording;

    public FaultInjectingFileIo() {
        for (Op op : Op.values()) {
            counts.put(op, new AtomicLong());
        }
    }

    /** Fails the {@code n}th (1-based) next {@code op} on a file whose name {@code files} accepts, once. */
    public synchronized FaultInjectingFileIo failNth(Op op, long n, DiskFault fault, Predicate<Path> files) {
        rules.add(new Rule(op, files, fault, new AtomicLong(n), false, null));
        return this;
    }

    /**
     * Throws {@code error} from the {@code n}th (1-based) next {@code op} on a file whose name {@code files}
     * accepts, once: a JVM failure at that point, such as the {@link OutOfMemoryError} of a thread that could
     * not be started, rather than a disk fault.
     */
    public synchronized FaultInjectingFileIo throwNth(Op op, long n, Error error, Predicate<Path> files) {
        rules.add(new Rule(op, files, null, new AtomicLong(n), false, error));
        return this;
    }

    /** {@link #failNth} on any file. */
    public FaultInjectingFileIo failNth(Op op, long n, DiskFault fault) {
        return failNth(op, n, fault, p -> true);
    }

    /** Fails every {@code op} on a file whose name {@code files} accepts, until {@link #heal()}. */
    public synchronized FaultInjectingFileIo failAll(Op op, DiskFault fault, Predicate<Path> files) {
        rules.add(new Rule(op, files, fault, new AtomicLong(1), true, null));
        return this;
    }

    /** {@link #failAll} on any file. */
    public FaultInjectingFileIo failAll(Op op, DiskFault fault) {
        return failAll(op, fault, p -> true);
    }

    /** Makes every {@code op} sleep {@code ms} first. */
    public synchronized FaultInjectingFileIo delay(Op op, long ms) {
        delays.put(op, ms);
        return this;
    }

    /** Removes every failure rule and delay. */
    public synchronized void heal() {
        rules.clear();
        delays.clear();
    }

    /** How many operations of {@code op} were attempted (failed ones included). */
    public long count(Op op) {
        return counts.get(op).get();
    }

    /** Starts or stops recording successful mutating operations. */
    public void record(boolean on) {
        recording = on;
    }

    /** The operations recorded so far, in order. */
    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Counts {@code op}, sleeps if asked, and throws the fault of a matching rule. */
    private void check(Op op, Path file) throws IOException {
        counts.get(op).incrementAndGet();
        DiskFault fault = null;
        Error error = null;
        long delay;
        synchronized (this) {
            delay = delays.getOrDefault(op, 0L);
            for (var it = rules.iterator(); it.hasNext(); ) {
                Rule r = it.next();
                if (r.op == op && r.files.test(file)) {
                    if (r.sticky) {
                        fault = r.fault;
                        break;
                    }
                    if (r.countdown.decrementAndGet() == 0) {
                        it.remove();
                        fault = r.fault;
                        error = r.error;
                        break;
                    }
                }
            }
        }
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (error != null) {
            throw error;
        }
        if (fault != null) {
            throw switch (op) {
                case WRITE, FORCE -> new IOException(fault.strerror());
                default -> new FileSystemException(file.toString(), null, fault.strerror());
            };
        }
    }

    private void recordEvent(Op op, Path path, Path target, long position, ByteBuffer data) {
        if (recording) {
            byte[] bytes = null;
            if (data != null) {
                bytes = new byte[data.remaining()];
                data.duplicate().get(bytes);
            }
            synchronized (this) {
                events.add(new Event(op, path, target, position, bytes));
            }
        }
    }

    @Override
    public FileChannel open(Path file, StandardOpenOption... options) throws IOException {
        List<StandardOpenOption> opts = Arrays.asList(options);
        boolean creates = opts.contains(StandardOpenOption.CREATE) || opts.contains(StandardOpenOption.CREATE_NEW);
        boolean existed = java.nio.file.Files.exists(file);
        if (creates) {
            check(Op.CREATE, file);
        }
        FileChannel ch = FileChannel.open(file, options);
        if (creates && !existed) {
            recordEvent(Op.CREATE, file, null, 0, null);
        }
        if (opts.contains(StandardOpenOption.TRUNCATE_EXISTING) && existed) {
            recordEvent(Op.WRITE, file, null, -1, null); // a truncation to 0: position -1
        }
        return new Channel(file, ch);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        check(Op.RENAME, from);
        FileIo.DISK.rename(from, to);
        recordEvent(Op.RENAME, from, to, 0, null);
    }

    @Override
    public boolean delete(Path file) throws IOException {
        check(Op.DELETE, file);
        boolean existed = FileIo.DISK.delete(file);
        if (existed) {
            recordEvent(Op.DELETE, file, null, 0, null);
        }
        return existed;
    }

    @Override
    public void createDirectory(Path dir) throws IOException {
        check(Op.MKDIR, dir);
        FileIo.DISK.createDirectory(dir);
        recordEvent(Op.MKDIR, dir, null, 0, null);
    }

    @Override
    public void link(Path link, Path existing) throws IOException {
        check(Op.LINK, link);
        FileIo.DISK.link(link, existing);
        recordEvent(Op.LINK, link, existing, 0, null);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        check(Op.SYNC_DIR, dir);
        FileIo.DISK.syncDirectory(dir);
        recordEvent(Op.SYNC_DIR, dir, null, 0, null);
    }

    /** A channel whose writes and forces go through the rules; everything else is delegated. */
    private final class Channel extends FileChannel {
        private final Path file;
        private final FileChannel inner;

        Channel(Path file, FileChannel inner) {
            this.file = file;
            this.inner = inner;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return inner.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return inner.read(dsts, offset, length);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            check(Op.WRITE, file);
            long pos = inner.position();
            ByteBuffer copy = recording ? src.duplicate() : null;
            int n = inner.write(src);
            if (copy != null) {
                recordEvent(Op.WRITE, file, null, pos, copy.limit(copy.position() + n));
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                while (srcs[i].hasRemaining()) {
                    total += write(srcs[i]);
                }
            }
            return total;
        }

        @Override
        public long position() throws IOException {
            return inner.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            inner.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return inner.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            check(Op.WRITE, file);
            inner.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            check(Op.FORCE, file);
            inner.force(metaData);
            recordEvent(Op.FORCE, file, null, 0, null);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(count, 64 * 1024));
            int n = inner.read(buf, position);
            if (n <= 0) {
                return n;
            }
            buf.flip();
            long done = 0;
            while (buf.hasRemaining()) {
                done += target.write(buf);
            }
            return done;
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            throw new UnsupportedOperationException("transferFrom is not used by the engine");
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return inner.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            check(Op.WRITE, file);
            ByteBuffer copy = recording ? src.duplicate() : null;
            int n = inner.write(src, position);
            if (copy != null) {
                recordEvent(Op.WRITE, file, null, position, copy.limit(copy.position() + n));
            }
            return n;
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return inner.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return inner.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return inner.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            inner.close();
        }
    }
}
