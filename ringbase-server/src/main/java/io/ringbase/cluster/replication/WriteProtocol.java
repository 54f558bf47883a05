package io.ringbase.cluster.replication;

import java.util.Locale;

/**
 * How a coordinator makes a quorum write ({@code ack > from/2}) linearizable ({@code --write-protocol}).
 * Writes below a quorum promise no order and are the same under both.
 */
public enum WriteProtocol {
    /**
     * One round trip per replica ({@link OneRoundWrite}): the write goes out once under the coordinator's
     * clock, replicas take it only if it is newer than what they hold, and the coordinator re-stamps it
     * above a newer version only when no replica took it. Under writes of one key racing through several
     * coordinators some of its writes fail as possibly applied (504) where ABD orders them, which the
     * membership checker of the fault suite counts as failures: not the default.
     */
    ONE_ROUND("one-round"),
    /**
     * ABD's two phases: the key's version is read from {@code ack} replicas first, then the write goes out
     * above it (Attiya, Bar-Noy and Dolev, JACM 1995). One more round trip per write. The default.
     */
    ABD("abd");

    /** The protocol a node uses unless told otherwise. */
    public static final WriteProtocol DEFAULT = ABD;

    private final String flag;

    WriteProtocol(String flag) {
        this.flag = flag;
    }

    /** The flag's spelling: {@code one-round} or {@code abd}. */
    public String flag() {
        return flag;
    }

    /**
     * The protocol spelled {@code text} (case-insensitive).
     *
     * @throws IllegalArgumentException if it is neither {@code one-round} nor {@code abd}
     */
    public static WriteProtocol parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        for (WriteProtocol p : values()) {
            if (p.flag.equals(t)) {
                return p;
            }
        }
        throw new IllegalArgumentException("--write-protocol must be one-round or abd, got '" + text + "'");
    }

    @Override
    public String toString() {
        return flag;
    }
}
