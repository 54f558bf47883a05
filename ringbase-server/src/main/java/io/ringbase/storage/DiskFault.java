package io.ringbase.storage;

/**
 * The kinds of disk fault the engine tells apart, by the {@code strerror(3)} text the JDK puts in the
 * {@link java.io.IOException}'s message (glibc's wording; the JDK has no errno accessor). The HTTP layer
 * answers {@link #DISK_FULL} with 507 and the others with 503.
 */
public enum DiskFault {
    /** ENOSPC (or EDQUOT): no space left on the device or quota exceeded. */
    DISK_FULL("No space left on device", "disk full"),
    /** EIO: the device reported an I/O error. */
    IO_ERROR("Input/output error", "disk I/O error"),
    /** EMFILE or ENFILE: the process or system is out of file descriptors. */
    TOO_MANY_FILES("Too many open files", "out of file descriptors"),
    /** Any other {@link java.io.IOException}. */
    OTHER(null, "storage error");

    private final String strerror;
    private final String description;

    DiskFault(String strerror, String description) {
        this.strerror = strerror;
        this.description = description;
    }

    /** The C library's message for this errno, as the JDK reports it ({@code null} for {@link #OTHER}). */
    public String strerror() {
        return strerror;
    }

    /** A short phrase for operators: "disk full", "disk I/O error", ... */
    public String description() {
        return description;
    }

    /**
     * The fault behind {@code failure}: the first of its causes (itself first, then suppressed-free cause
     * chain) whose message names ENOSPC, EDQUOT, EIO, EMFILE or ENFILE; {@link #OTHER} if none does.
     */
    public static DiskFault classify(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            if (m == null) {
                continue;
            }
            if (m.contains(DISK_FULL.strerror) || m.contains("Disk quota exceeded")) {
                return DISK_FULL;
            }
            if (m.contains(IO_ERROR.strerror)) {
                return IO_ERROR;
            }
            if (m.contains(TOO_MANY_FILES.strerror) || m.contains("Too many open files in system")) {
                return TOO_MANY_FILES;
            }
        }
        return OTHER;
    }
}
