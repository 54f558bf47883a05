package io.ringbase.client;

/**
 * A request the cluster answered with an error, or that no node answered. Unchecked, as the JDK's
 * {@link java.io.UncheckedIOException}: most callers pass it up.
 */
public class RingbaseException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The HTTP status, or 0 if no node answered. */
    private final int status;

    /**
     * @param status  the HTTP status, 0 for none
     * @param message what failed, with the node's one-line reason when it gave one
     */
    public RingbaseException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** A request no node answered: {@code cause} is the last node's failure. */
    public RingbaseException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
    }

    /**
     * The HTTP status: 400 a bad request, 413 a value too large, 503 overloaded, 504 too few replicas
     * answered (a write may have been applied), 507 disk full; 0 when no node answered.
     */
    public int status() {
        return status;
    }
}
