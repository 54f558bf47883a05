package io.ringbase.cluster.metadata;

/**
 * The state of a member in the cluster metadata, as in CEP-21's node states. Each code is persisted in
 * snapshots (docs/metadata-format.md, section 4): <strong>do not change</strong> the codes, only add new
 * ones.
 */
public enum MemberState {
    /** Joining: gets writes (it is in the new placement) but serves no reads until the join finishes. */
    JOINING(1),
    /** A full member: reads and writes. */
    NORMAL(2),
    /** Decommissioning: still in the read placement and gets writes until the decommission finishes. */
    LEAVING(3),
    /** Gone, by decommission, removal or replacement; its id is never given to another node. */
    LEFT(4),
    /**
     * Replacing a dead or wiped node: gets the writes of the node it replaces but counts toward no read
     * quorum until it has streamed and the replacement finishes.
     */
    REPLACING(5);

    private final int code;

    MemberState(int code) {
        this.code = code;
    }

    /** The persisted code, 1..5. */
    public int code() {
        return code;
    }

    /** Whether the node takes part in the cluster (every state but {@link #LEFT}). */
    public boolean isLive() {
        return this != LEFT;
    }

    /** Whether the node is mid-way through a membership change (JOINING, LEAVING or REPLACING). */
    public boolean isTransient() {
        return this == JOINING || this == LEAVING || this == REPLACING;
    }

    /**
     * The state with this persisted code.
     *
     * @throws IllegalArgumentException for a code that names no state
     */
    public static MemberState ofCode(int code) {
        for (MemberState state : values()) {
            if (state.code == code) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown node state code " + code);
    }
}
