package io.ringbase.observe;

import io.ringbase.cluster.hint.HintStats;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.repair.RepairStatus;
import io.ringbase.cluster.rpc.PeerCallStats;
import java.util.List;

/**
 * What metrics and the status page read of a cluster node's services; the node ({@code server.Node})
 * implements it over its failure detector, replica client, hinted handoff, coordinator and repair.
 * Every method is cheap and thread-safe.
 */
public interface ClusterSource {

    /**
     * One other node as this node sees it.
     *
     * @param url         its URL in {@code --cluster}
     * @param up          whether the failure detector holds it up
     * @param downSinceMs Unix ms since when it is held down, 0 while up
     * @param slow        whether its last data calls all timed out (reads go to other replicas first)
     * @param calls       calls this node made to it and how they ended
     */
    record Peer(String url, boolean up, long downSinceMs, boolean slow, PeerCallStats.Snapshot calls) {}

    /** Copies of each key: how many nodes hold it, the largest and the default {@code from} of a request. */
    int replicationFactor();

    /** Every other node of the cluster, in {@code --cluster} order. */
    List<Peer> peers();

    /** Hinted handoff's counters and backlog. */
    HintStats hints();

    /** Read-repair writes started since the node started. */
    long readRepairs();

    /** Reads sent to one more replica because a speculative retry's delay passed, since the node started. */
    long speculativeReads();

    /**
     * Data operations (reads, version reads, writes, read-repair writes) of requests this node coordinated
     * that its own engine served, since the node started.
     */
    default long localReplicaOps() {
        return 0;
    }

    /** As {@link #localReplicaOps()}, for those sent to other nodes (each a network round trip). */
    default long remoteReplicaOps() {
        return 0;
    }

    /**
     * One-round quorum writes sent again above a newer version because every replica already held one
     * (a coordinator clock behind another's), since the node started.
     */
    default long writesRestamped() {
        return 0;
    }

    /**
     * One-round quorum writes failed as possibly applied: some replicas took them while others held a newer
     * version (one key written through several coordinators at once), since the node started.
     */
    default long writesSplit() {
        return 0;
    }

    /** Paxos rounds started by this node's compare-and-sets (prepare phases), since the node started. */
    default long casRounds() {
        return 0;
    }

    /**
     * Compare-and-set rounds of this node that started over: a ballot lost to another coordinator, or too
     * few replicas answered, since the node started.
     */
    default long casContended() {
        return 0;
    }

    /** Anti-entropy repair's state and progress. */
    RepairStatus repair();

    /** This node's identity: node id, incarnation and state (whether it answers reads). */
    NodeIdentity identity();

    /** The membership this node and its peers must agree on. */
    Membership membership();

    /** The node's elastic membership; empty for a static cluster. */
    default java.util.Optional<ElasticFigures> elastic() {
        return java.util.Optional.empty();
    }
}
