package io.ringbase.functions;

import org.jspecify.annotations.Nullable;

/**
 * A page of a share that did not come back: the node answered with an error ({@link #answered()}: it is
 * up, e.g. its own scan lost a replica or its function pool was full) or did not answer at all (down, or
 * past the page's deadline), in which case its share is handed on to the next replicas.
 */
public final class ShareFailedException extends Exception {

    private final String node;
    private final boolean answered;
    private final int status;

    /**
     * @param node     the node asked
     * @param answered whether it answered (with an error)
     * @param status   the HTTP status it answered, or 0 if none
     */
    public ShareFailedException(String node, boolean answered, int status, String message, @Nullable Throwable cause) {
        super(node + ": " + message, cause);
        this.node = node;
        this.answered = answered;
        this.status = status;
    }

    /** The node asked. */
    public String node() {
        return node;
    }

    /** Whether the node answered (with an error); false: unreachable or too slow. */
    public boolean answered() {
        return answered;
    }

    /** The HTTP status it answered, 0 if none. */
    public int status() {
        return status;
    }
}
