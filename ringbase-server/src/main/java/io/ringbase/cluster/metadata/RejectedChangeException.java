package io.ringbase.cluster.metadata;

/**
 * A transformation the metadata log committed but rejected: it was not valid against the metadata at that
 * point of the log, which it left unchanged. The message is the one-line reason.
 */
public final class RejectedChangeException extends RuntimeException {

    private final transient Transformation transformation;
    private final long epoch;

    public RejectedChangeException(Transformation transformation, long epoch, String reason) {
        super(reason);
        this.transformation = transformation;
        this.epoch = epoch;
    }

    /** The change that was rejected. */
    public Transformation transformation() {
        return transformation;
    }

    /** The epoch of the metadata it was rejected against (unchanged by it). */
    public long epoch() {
        return epoch;
    }
}
