package io.ringbase.cluster.streaming;

/**
 * The source refused the plan itself (it does not decode, or names another node as its source): asking
 * again cannot help, so a {@link StreamSession} fails at once instead of retrying.
 */
public final class StreamRefusedException extends RuntimeException {

    /** @param message what the source answered, for the operator */
    public StreamRefusedException(String message) {
        super(message);
    }
}
