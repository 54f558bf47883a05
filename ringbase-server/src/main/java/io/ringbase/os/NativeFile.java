package io.ringbase.os;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A file opened read-only by the C library ({@code open(2)} with {@code O_RDONLY | O_CLOEXEC}) and read
 * with {@code pread(2)} into native memory, through the foreign function API. It exists for the point
 * reads of tables that are not in the page cache: a fault in a file mapping makes the kernel read up to
 * the device's {@code read_ahead_kb} around it (8 MiB on some VMs), where a {@code pread} reads what was
 * asked. It is opened with {@code posix_fadvise(POSIX_FADV_RANDOM)}, so the kernel does not read ahead
 * of its reads either. Unlike a {@link java.nio.channels.FileChannel}, an interrupted reader does not
 * close it for every other thread.
 *
 * <p>Linux only: where the calls are unavailable, {@link #open} returns empty. Reads are thread-safe;
 * {@link #close} must follow the last read (the owner counts its readers).
 */
public final class NativeFile implements AutoCloseable {

    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000; // 02000000, on x86-64 and arm64 alike
    private static final int POSIX_FADV_RANDOM = 1;
    private static final int POSIX_FADV_WILLNEED = 3;
    private static final int EINTR = 4;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN;
    private static final MethodHandle PREAD;
    private static final MethodHandle FADVISE;
    private static final MethodHandle CLOSE;
    /** Per thread: where a call leaves its {@code errno}. */
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CALL_STATE));

    static {
        MethodHandle open = null;
        MethodHandle pread = null;
        MethodHandle fadvise = null;
        MethodHandle close = null;
        try {
            Linker.Option errno = Linker.Option.captureCallState("errno");
            open = Libc.function(
                    "open",
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                    errno,
                    Linker.Option.firstVariadicArg(2));
            pread = Libc.function(
                    "pread",
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT,
                            ValueLayout.ADDRESS,
                            ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG),
                    errno);
            fadvise = Libc.function(
                    "posix_fadvise",
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT));
            close = Libc.function("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        } catch (RuntimeException | LinkageError e) {
            open = null;
        }
        OPEN = open;
        PREAD = pread;
        FADVISE = fadvise;
        CLOSE = close;
    }

    private final Path path;
    private final int fd;

    private NativeFile(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /** Whether this platform has the calls ({@link #open} can return a file). */
    public static boolean available() {
        return OPEN != null;
    }

    /**
     * Opens {@code file} for reading and advises the kernel that reads of it are random.
     *
     * @return the open file, or empty where the calls are unavailable (not Linux, no native access)
     * @throws IOException if {@code open(2)} failed (ENOENT, EMFILE, EACCES...), naming the errno
     */
    public static Optional<NativeFile> open(Path file) throws IOException {
        if (OPEN == null) {
            return Optional.empty();
        }
        MemorySegment state = STATE.get();
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(file.toString());
            do {
                fd = (int) OPEN.invokeExact(state, name, O_RDONLY | O_CLOEXEC, 0);
            } while (fd < 0 && errno(state) == EINTR);
        } catch (Throwable e) {
            throw new IOException("open(2) of " + file + " failed to run: " + e, e);
        }
        if (fd < 0) {
            throw new IOException("open(2) of " + file + " failed: " + describe(errno(state)));
        }
        try {
            int unused = (int) FADVISE.invokeExact(
                    fd, 0L, 0L, POSIX_FADV_RANDOM); // advice only: a failure changes nothing we rely on
        } catch (Throwable e) {
            // advice only
        }
        return Optional.of(new NativeFile(file, fd));
    }

    /**
     * Reads exactly {@code bytes} bytes at {@code position} of the file into {@code dst[0, bytes)}, with as
     * many {@code pread(2)} calls as it takes (retrying EINTR).
     *
     * @param dst native memory of at least {@code bytes}
     * @throws IOException if a call failed (EIO...) or the file ended first, naming the file and errno
     */
    public void read(long position, MemorySegment dst, int bytes) throws IOException {
        MemorySegment state = STATE.get();
        long done = 0;
        while (done < bytes) {
            long n;
            MemorySegment into = done == 0 ? dst : dst.asSlice(done);
            try {
                n = (long) PREAD.invokeExact(state, fd, into, (long) bytes - done, position + done);
            } catch (Throwable e) {
                throw new IOException("pread(2) of " + path + " failed to run: " + e, e);
            }
            if (n > 0) {
                done += n;
            } else if (n == 0) {
                throw new IOException("pread(2) of " + path + " at byte " + (position + done)
                        + ": the file ends there, " + (bytes - done) + " bytes short");
            } else if (errno(state) != EINTR) {
                throw new IOException(
                        "pread(2) of " + path + " at byte " + (position + done) + " failed: " + describe(errno(state)));
            }
        }
    }

    /**
     * Asks the kernel to start reading {@code bytes} bytes at {@code position} into the page cache
     * ({@code posix_fadvise(POSIX_FADV_WILLNEED)}), without waiting for them: a later {@link #read} of that
     * range then waits only for what is still in flight. Several such calls put their reads on the device
     * together, where reads one after another would each wait for the last. Advice only: a failure is
     * ignored.
     */
    public void willNeed(long position, long bytes) {
        try {
            int unused = (int) FADVISE.invokeExact(fd, position, bytes, POSIX_FADV_WILLNEED);
        } catch (Throwable e) {
            // advice only
        }
    }

    /** Closes the descriptor; no read may follow or run concurrently. Errors are ignored (read-only file). */
    @Override
    public void close() {
        try {
            int unused = (int) CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            // read-only descriptor: nothing to lose
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static String describe(int errno) {
        String name = switch (errno) {
            case 2 -> "ENOENT";
            case 5 -> "EIO";
            case 9 -> "EBADF";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 14 -> "EFAULT";
            case 22 -> "EINVAL";
            case 23 -> "ENFILE";
            case 24 -> "EMFILE";
            default -> null;
        };
        return name == null ? "errno " + errno : name + " (errno " + errno + ")";
    }

    @Override
    public String toString() {
        return "NativeFile[" + path + ", fd " + fd + "]";
    }
}
