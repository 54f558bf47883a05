package io.ringbase.node;

import io.ringbase.api.MembershipControl;
import io.ringbase.api.RepairControl;
import io.ringbase.cluster.hint.HintedHandoff;
import io.ringbase.cluster.repair.AntiEntropyRepair;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.rpc.MetadataEndpoint;
import io.ringbase.cluster.rpc.PeerGate;
import io.ringbase.kv.KeyValueService;
import io.ringbase.observe.ClusterSource;
import java.util.List;
import java.util.Optional;

/**
 * What a node's membership gives the rest of the node: a node alone ({@link StandaloneServices}, a cluster of
 * one) or a member of a larger cluster ({@link ClusterServices}). The node's assembly picks one, in one
 * place; everything else (the HTTP API, the node-to-node API, metrics and status) is built the same way on
 * either.
 */
interface NodeServices {

    /** Where keys live now: the node's rings and replication factor, at its latest metadata epoch. */
    Placement placement();

    /** What the node-to-node API serves of the cluster metadata log ({@link MetadataEndpoint#NONE}: none). */
    default MetadataEndpoint metadataEndpoint() {
        return MetadataEndpoint.NONE;
    }

    /** Decommission and cleanup for the admin API ({@link MembershipControl#NONE}: a static cluster). */
    default MembershipControl membershipControl() {
        return MembershipControl.NONE;
    }

    /** How function jobs are distributed over the replicas; {@code null} on a node alone. */
    default io.ringbase.functions.@org.jspecify.annotations.Nullable JobCluster jobCluster() {
        return null;
    }

    /** The key-value service the public API calls. */
    KeyValueService kv();

    /** This node's Paxos acceptor, answering peers' compare-and-set rounds; {@code null} on a node alone. */
    default io.ringbase.cluster.paxos.@org.jspecify.annotations.Nullable PaxosAcceptor paxos() {
        return null;
    }

    /** What the node-to-node API serves of anti-entropy repair (Merkle trees, entries). */
    RepairSource repairSource();

    /** The repair behind {@code /v0/admin/repair}. */
    RepairControl repairControl();

    /** What the node-to-node API checks requests against (membership, reads allowed) and how it answers hellos. */
    PeerGate peerGate();

    /** The cluster's figures for metrics and status; empty for a node alone, which has no peers. */
    Optional<ClusterSource> figures();

    /** The other nodes' URLs, in {@code --cluster} order. */
    List<String> peerUrls();

    /**
     * The coordinator.
     *
     * @throws IllegalStateException on a node alone, which coordinates nothing
     */
    Coordinator coordinator();

    /**
     * Hinted handoff.
     *
     * @throws IllegalStateException on a node alone, which keeps no hints
     */
    HintedHandoff hints();

    /**
     * Anti-entropy repair.
     *
     * @throws IllegalStateException on a node alone, which has no peer to repair from
     */
    AntiEntropyRepair repair();
}
