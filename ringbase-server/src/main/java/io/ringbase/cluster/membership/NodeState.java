package io.ringbase.cluster.membership;

/**
 * Whether a node counts toward read quorums. Writes are taken in every state: a write stored on a node
 * is durable there whatever it missed before.
 */
public enum NodeState {
    /**
     * A data directory that got its identity at this start (empty, or restored from a snapshot): it
     * answers no read until its peers have said whether they remember an earlier incarnation of this node
     * (then {@link #REPLACING}) or not (then {@link #NORMAL}).
     */
    PENDING('P'),
    /** A full replica: it answers reads. */
    NORMAL('N'),
    /**
     * A node that lost its data (a wiped or replaced disk) and is streaming it back from its peers: it
     * answers no read until a repair against every peer has completed, so it can never make a quorum
     * read miss a write it had acknowledged before it lost its data.
     */
    REPLACING('R');

    private final char code;

    NodeState(char code) {
        this.code = code;
    }

    /** One letter for the wire and the identity file: {@code P}, {@code N} or {@code R}. */
    public char code() {
        return code;
    }

    /** Whether a node in this state answers reads (counts toward read quorums). */
    public boolean servesReads() {
        return this == NORMAL;
    }

    /**
     * The state with {@link #code()} {@code c}.
     *
     * @throws IllegalArgumentException for any other letter
     */
    public static NodeState ofCode(char c) {
        for (NodeState s : values()) {
            if (s.code == c) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown node state '" + c + "'");
    }
}
