package io.ringbase.cli;

import io.ringbase.cluster.membership.IdentityMismatchException;
import io.ringbase.node.ListenException;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DirectoryLockedException;
import io.ringbase.tls.TlsException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;

/**
 * Why a node could not start, as one line for stderr and a documented exit code
 * (docs/operations.md, "Exit codes of serve and cluster"): the operator sees what to fix, not a stack
 * trace.
 *
 * @param exitCode {@link #PORT}, {@link #DATA_DIR}, {@link #DAMAGED} or {@link #SECRET}; {@link #UNEXPECTED}
 *                 for anything else
 * @param message  one line, without the command name
 */
record StartupFailure(int exitCode, String message) {

    /** Anything not below (the log has the stack trace). */
    static final int UNEXPECTED = 1;
    /** Bad flag or flag value (picocli's usage error code). */
    static final int USAGE = 2;
    /** The port is in use or cannot be bound. */
    static final int PORT = 3;
    /** The data directory is locked by another process, or cannot be created, read or written. */
    static final int DATA_DIR = 4;
    /** The data directory is damaged: a corrupt or missing file the manifest names. */
    static final int DAMAGED = 5;
    /** The cluster secret file cannot be read or is too short; the token file or the TLS files cannot be used. */
    static final int SECRET = 6;

    /**
     * Classifies a failure of {@code Node.start}.
     *
     * @param dataDir the data directory, for messages
     */
    static StartupFailure of(Throwable failure, String dataDir) {
        Throwable t = failure;
        while (t.getCause() != null && !(t instanceof IOException)) {
            t = t.getCause();
        }
        return switch (t) {
            case ListenException l -> new StartupFailure(PORT, l.getMessage());
            case TlsException tls -> new StartupFailure(SECRET, tls.getMessage());
            case DirectoryLockedException d -> new StartupFailure(DATA_DIR, d.getMessage());
            case IdentityMismatchException m -> new StartupFailure(DATA_DIR, m.getMessage());
            case CorruptionException c ->
                new StartupFailure(
                        DAMAGED,
                        "data directory " + dataDir + " is damaged: " + c.getMessage()
                                + " (nothing was changed; see docs/format.md, section 5)");
            case AccessDeniedException a ->
                new StartupFailure(
                        DATA_DIR, "data directory " + dataDir + " cannot be used: permission denied on " + a.getFile());
            case FileSystemException f ->
                new StartupFailure(
                        DATA_DIR,
                        "data directory " + dataDir + " cannot be used: "
                                + (f.getReason() != null
                                        ? f.getReason()
                                        : f.getClass().getSimpleName()) + " (" + f.getFile() + ")");
            case IOException io ->
                new StartupFailure(DATA_DIR, "data directory " + dataDir + " cannot be used: " + io.getMessage());
            default -> new StartupFailure(UNEXPECTED, "unexpected failure while starting: " + failure);
        };
    }
}
