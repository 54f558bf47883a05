package io.ringbase.storage.lsm.sstable;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DiskFault;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Reads of an SSTable that failed because the disk could not give back the file's bytes: a page of the
 * mapping the kernel could not read (EIO on a mapped page raises SIGBUS, which the JVM reports as an
 * {@link InternalError} "a fault occurred in an unsafe memory access operation" from the access that
 * touched it) or a {@code pread} that failed with EIO. Either is reported as a
 * {@link CorruptionException} naming the table ({@link #damage}), as a checksum mismatch is: the request
 * that read it fails with an error instead of its thread dying of an {@code Error}, and the engine
 * quarantines the table. Cassandra's {@code FSReadError} under {@code disk_failure_policy: best_effort}
 * takes an unreadable SSTable out of service likewise.
 */
public final class ReadFault {

    /** What the JVM's {@link InternalError} for a fault in a mapped memory access says (JDK 9 on). */
    static final String MAPPED_ACCESS_FAULT = "unsafe memory access operation";

    private ReadFault() {}

    /**
     * Whether {@code failure}, thrown by a read of a table, means the disk could not read the file: an
     * {@link InternalError} from a mapped memory access, or an {@link IOException} (also inside an
     * {@link UncheckedIOException}) whose cause names EIO. A {@link CorruptionException} is not one: it
     * is damage already.
     */
    public static boolean isDiskFault(Throwable failure) {
        if (failure instanceof InternalError e) {
            return e.getMessage() != null && e.getMessage().contains(MAPPED_ACCESS_FAULT);
        }
        Throwable io = failure instanceof UncheckedIOException u ? u.getCause() : failure;
        return io instanceof IOException
                && !(io instanceof CorruptionException)
                && DiskFault.classify(io) == DiskFault.IO_ERROR;
    }

    /**
     * {@code failure} ({@link #isDiskFault}) as the damage of table {@code file}, at an unknown offset.
     *
     * @return a {@link CorruptionException} naming {@code file}, with {@code failure} as its cause
     */
    public static CorruptionException damage(Path file, Throwable failure) {
        String what = failure instanceof InternalError
                ? "the disk could not read a page of the mapped file (EIO, SIGBUS)"
                : "the disk could not read the file (" + failure.getMessage() + ")";
        return new CorruptionException(file, -1, what, failure);
    }
}
