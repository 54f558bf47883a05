package io.ringbase.cluster.replication;

/**
 * A request could not get {@code ack} answers from its {@code from} replicas; the HTTP layer answers
 * 504 with {@link #getMessage()}. The two cases differ in what the client may assume.
 */
public abstract sealed class QuorumException extends Exception {

    private final int ack;
    private final int from;

    private QuorumException(String message, int ack, int from) {
        super(message);
        this.ack = ack;
        this.from = from;
    }

    public int ack() {
        return ack;
    }

    public int from() {
        return from;
    }

    /**
     * Fewer than {@code ack} replicas were up when the request arrived, so it was sent to none: nothing
     * was written (Cassandra's UnavailableException).
     */
    public static final class Unavailable extends QuorumException {
        public Unavailable(int ack, int from, int up) {
            super("not enough replicas reachable: " + up + " of " + from + " up, " + ack
                    + " needed; the request was not sent to any replica, nothing was written", ack, from);
        }
    }

    /**
     * The request was sent but fewer than {@code ack} replicas answered in time or without error: a write
     * may have been applied on some replicas (and will spread from there by hints and repair).
     */
    public static final class NotEnoughAnswers extends QuorumException {
        public NotEnoughAnswers(int ack, int from, int answered, int timedOut, int failed) {
            super("timeout: " + answered + " of " + from + " replicas answered, " + ack + " needed ("
                    + timedOut + " timed out, " + failed + " failed); a write may have been applied on some replicas",
                    ack, from);
        }
    }

    /**
     * Every attempt of a write was acknowledged by {@code ack} replicas, but on each some replica already
     * held a newer version of the key (a write through another coordinator whose clock was ahead), and
     * the coordinator gave up re-versioning it after {@code attempts}: the write is stored on
     * {@code stored} replicas, under a version that loses, so it may or may not be visible.
     */
    public static final class LostToNewerVersions extends QuorumException {
        public LostToNewerVersions(int ack, int from, int stored, int attempts) {
            super("timeout: " + stored + " of " + from + " replicas answered and stored the write, " + ack
                    + " needed, but a newer version of the key was already there on each of " + attempts
                    + " attempts (writes through another coordinator with a clock ahead); the write may have"
                    + " been applied on some replicas", ack, from);
        }
    }
}
