package io.ringbase.node;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.elastic.ElasticMembership;
import io.ringbase.cluster.elastic.MoveStatus;
import io.ringbase.cluster.hint.HintStats;
import io.ringbase.cluster.hint.HintedHandoff;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.paxos.PaxosProposer;
import io.ringbase.cluster.repair.AntiEntropyRepair;
import io.ringbase.cluster.repair.RepairStatus;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.Liveness;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.observe.ClusterSource;
import io.ringbase.observe.ElasticFigures;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** A cluster node's figures for metrics and status, read from its services. Thread-safe. */
final class ClusterFigures implements ClusterSource {

    private final Liveness liveness;
    private final PeerCallStats calls;
    private final HintedHandoff hints;
    private final Coordinator coordinator;
    private final AntiEntropyRepair repair;
    private final LocalMembership membership;
    private final @Nullable ElasticMembership elastic;
    private final PaxosProposer paxos;

    ClusterFigures(
            Liveness liveness,
            PeerCallStats calls,
            HintedHandoff hints,
            Coordinator coordinator,
            AntiEntropyRepair repair,
            LocalMembership membership,
            @Nullable ElasticMembership elastic,
            PaxosProposer paxos) {
        this.paxos = paxos;
        this.membership = membership;
        this.elastic = elastic;
        this.liveness = liveness;
        this.calls = calls;
        this.hints = hints;
        this.coordinator = coordinator;
        this.repair = repair;
    }

    @Override
    public int replicationFactor() {
        return coordinator.placement().replicationFactor();
    }

    @Override
    public List<Peer> peers() {
        List<Peer> out = new ArrayList<>();
        Placement placement = coordinator.placement();
        for (NodeId n : placement.nodes()) {
            if (!n.equals(placement.self())) {
                out.add(new Peer(
                        n.toString(),
                        liveness.isUp(n),
                        liveness.downSinceMs(n),
                        liveness.isSlow(n),
                        calls.snapshot(n)));
            }
        }
        return out;
    }

    @Override
    public HintStats hints() {
        return hints.stats();
    }

    @Override
    public long readRepairs() {
        return coordinator.readRepairs();
    }

    @Override
    public long speculativeReads() {
        return coordinator.speculativeReads();
    }

    @Override
    public long localReplicaOps() {
        return coordinator.localReplicaOps();
    }

    @Override
    public long remoteReplicaOps() {
        return coordinator.remoteReplicaOps();
    }

    @Override
    public long writesRestamped() {
        return coordinator.writesRestamped();
    }

    @Override
    public long writesSplit() {
        return coordinator.writesSplit();
    }

    @Override
    public long casRounds() {
        return paxos.rounds();
    }

    @Override
    public long casContended() {
        return paxos.contended();
    }

    @Override
    public RepairStatus repair() {
        return repair.status();
    }

    @Override
    public NodeIdentity identity() {
        return membership.identity();
    }

    @Override
    public Membership membership() {
        return membership.membership();
    }

    @Override
    public Optional<ElasticFigures> elastic() {
        ElasticMembership m = elastic;
        if (m == null) {
            return Optional.empty();
        }
        MoveStatus s = m.moveStatus();
        return Optional.of(new ElasticFigures(
                m.epoch(),
                m.selfId(),
                m.selfStateName(),
                s.kind(),
                s.phase(),
                s.streamsDone(),
                s.streamsTotal(),
                s.entries(),
                s.bytes(),
                s.elapsedMs()));
    }
}
