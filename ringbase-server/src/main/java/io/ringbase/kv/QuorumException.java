package io.ringbase.kv;

/**
 * A request could not get {@code ack} answers from its {@code from} replicas: how a
 * {@link KeyValueService} call fails when too few replicas answer (never on a node alone). The HTTP API
 * answers 504 with {@link #getMessage()}. The cases differ in what the client may assume.
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
            super(
                    "not enough replicas reachable: " + up + " of " + from + " up, " + ack
                            + " needed; the request was not sent to any replica, nothing was written",
                    ack,
                    from);
        }
    }

    /**
     * The request was sent but fewer than {@code ack} replicas answered in time or without error: a write
     * may have been applied on some replicas (and will spread from there by hints and repair).
     */
    public static final class NotEnoughAnswers extends QuorumException {
        public NotEnoughAnswers(int ack, int from, int answered, int timedOut, int failed) {
            super(
                    "timeout: " + answered + " of " + from + " replicas answered, " + ack + " needed (" + timedOut
                            + " timed out, " + failed + " failed); a write may have been applied on some replicas",
                    ack,
                    from);
        }
    }

    /**
     * A write below a quorum was acknowledged by {@code ack} replicas, but some replica already held a
     * newer version of the key (a write through another coordinator whose clock was ahead), and the
     * coordinator did not write it again above that version: either every one of its
     * attempts met a newer version ({@link #afterAttempts}), or its
     * background queue was full when it would have started the next attempt ({@link #queueFull}). The write
     * is stored on {@code stored} replicas under a version that loses, so it may or may not be visible.
     * Nothing timed out: every replica counted answered.
     *
     * <p>A one-round quorum write ({@code --write-protocol one-round}) fails this way when no replica took
     * it on any attempt ({@link #notAccepted}: nothing was applied), or when some took it and others held a
     * newer version while fewer than {@code ack} took it ({@link #split}: it may have been applied, ordered
     * before the newer write).
     */
    public static final class LostToNewerVersions extends QuorumException {
        private LostToNewerVersions(String message, int ack, int from) {
            super(message, ack, from);
        }

        /** Each of {@code attempts} attempts was stored by {@code stored} replicas and met a newer version. */
        public static LostToNewerVersions afterAttempts(int ack, int from, int stored, int attempts) {
            return new LostToNewerVersions(
                    stored(ack, from, stored)
                            + ", but a newer version of the key was already there on each of " + attempts
                            + " attempts (writes through another coordinator with a clock ahead); " + LOSES,
                    ack,
                    from);
        }

        /**
         * Attempt {@code attempt} was stored by {@code stored} replicas and met a newer version, and the next
         * attempt could not be started: the coordinator's background queue was full.
         */
        public static LostToNewerVersions queueFull(int ack, int from, int stored, int attempt, int maxAttempts) {
            return new LostToNewerVersions(
                    stored(ack, from, stored)
                            + ", but a newer version of the key was already there (attempt " + attempt + " of "
                            + maxAttempts + "), and the write was not written again above it: this"
                            + " coordinator's background queue is full; " + LOSES,
                    ack,
                    from);
        }

        /**
         * A one-round quorum write met a newer version on every replica that answered, on each of
         * {@code attempts} attempts (re-stamped above the newest one met each time): no replica took it.
         */
        public static LostToNewerVersions notAccepted(int ack, int from, int attempts) {
            return new LostToNewerVersions(
                    "lost to newer versions: on each of " + attempts + " attempts every replica that answered ("
                            + ack + " of " + from + " needed) already held a newer version of the key (writes"
                            + " through coordinators with clocks ahead, or a key written very often); no replica"
                            + " took the write",
                    ack,
                    from);
        }

        /**
         * A one-round quorum write was taken by {@code accepted} replicas, fewer than {@code ack}, while
         * {@code newer} others held a newer version (a concurrent write of the key) and the rest timed out or
         * failed: it may have been applied, ordered before that newer write, and is not written again.
         */
        public static LostToNewerVersions split(int ack, int from, int accepted, int newer, int timedOut, int failed) {
            return new LostToNewerVersions(
                    "lost to a concurrent write: " + accepted + " of " + from + " replicas took the write, " + ack
                            + " needed, " + newer + " held a newer version (" + timedOut + " timed out, " + failed
                            + " failed); the write may have been applied, ordered before the newer one",
                    ack,
                    from);
        }

        private static final String LOSES =
                "the write is stored under a version that loses, so it may never be" + " visible";

        private static String stored(int ack, int from, int stored) {
            return "lost to a newer version: " + stored + " of " + from + " replicas answered and stored the write, "
                    + ack + " needed";
        }
    }

    /**
     * A conditional write's Paxos rounds (docs/design.md, "Compare-and-set") did not finish within the
     * coordinator's deadline: other coordinators kept winning the key's ballots, or too few replicas
     * answered. With {@code proposed}, a proposal of this write was sent, so it may have been applied (and
     * may yet become visible, when a later round finishes it); without, nothing was written.
     */
    public static final class CasTimeout extends QuorumException {
        public CasTimeout(int ack, int from, long timeoutMs, int rounds, boolean proposed, String last) {
            super(
                    "compare-and-set timeout: no decision within " + timeoutMs + " ms (" + rounds
                            + " Paxos rounds; last: " + last + "); "
                            + (proposed ? "the write was proposed and may have been applied" : "nothing was written"),
                    ack,
                    from);
        }
    }
}
