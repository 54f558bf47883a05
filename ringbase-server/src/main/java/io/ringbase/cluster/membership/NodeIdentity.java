package io.ringbase.cluster.membership;

import java.util.HexFormat;
import java.util.Objects;

/**
 * Who this node is, as its data directory remembers it ({@link IdentityFile}).
 *
 * @param clusterName the cluster the data directory belongs to; a node refuses to start in another
 * @param nodeId      the node's id, 0 to 63: the low bits of every version it issues. Fixed when the data
 *                    directory is created (its position in {@code --cluster} then) and checked against
 *                    the list at every start, never taken from the list afterwards
 * @param incarnation random, new each time a data directory is created: tells a node that lost its data
 *                    from the node its peers knew
 * @param state       whether the node serves reads; see {@link NodeState}
 * @param createdAtMs when the data directory got this identity, Unix epoch ms
 */
public record NodeIdentity(String clusterName, int nodeId, long incarnation, NodeState state, long createdAtMs) {

    public NodeIdentity {
        Membership.checkName(clusterName);
        Objects.requireNonNull(state, "state");
        if (nodeId < 0 || nodeId > 0xFFFF) {
            throw new IllegalArgumentException("node id must be 0..65535, got " + nodeId);
        }
    }

    /** This identity in another state. */
    public NodeIdentity withState(NodeState s) {
        return new NodeIdentity(clusterName, nodeId, incarnation, s, createdAtMs);
    }

    /** {@link #incarnation()} as 16 lowercase hex digits, as it travels and is logged. */
    public String incarnationHex() {
        return hex(incarnation);
    }

    /** {@code incarnation} as 16 lowercase hex digits. */
    public static String hex(long incarnation) {
        return HexFormat.of().toHexDigits(incarnation);
    }
}
