package io.ringbase.node;

import io.ringbase.api.RepairControl;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintedHandoff;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.repair.AntiEntropyRepair;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.rpc.PeerGate;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.LocalKeyValueService;
import io.ringbase.observe.ClusterSource;
import io.ringbase.storage.StorageEngine;
import java.util.List;
import java.util.Optional;

/**
 * The services of a node alone, a cluster of one with replication factor 1: every request is answered by
 * its own engine ({@link LocalKeyValueService}); there is no peer to replicate to, hint for or repair from.
 * Opens nothing of its own.
 */
final class StandaloneServices implements NodeServices {

    private final KeyValueService kv;
    private final RepairSource repairSource;
    private final PeerGate gate;
    private final Placement placement;

    StandaloneServices(
            Topology topology, StorageEngine engine, HybridLogicalClock clock, TimeSource time, Membership membership) {
        this.kv = new LocalKeyValueService(engine, clock, time);
        this.gate = PeerGate.alone(topology.self().toString(), membership);
        this.placement = Placement.of(topology);
        this.repairSource = new RepairSource(engine, () -> placement);
    }

    @Override
    public Placement placement() {
        return placement;
    }

    @Override
    public KeyValueService kv() {
        return kv;
    }

    @Override
    public RepairSource repairSource() {
        return repairSource;
    }

    @Override
    public PeerGate peerGate() {
        return gate;
    }

    @Override
    public RepairControl repairControl() {
        return RepairControl.NONE;
    }

    @Override
    public Optional<ClusterSource> figures() {
        return Optional.empty();
    }

    @Override
    public List<String> peerUrls() {
        return List.of();
    }

    @Override
    public Coordinator coordinator() {
        throw new IllegalStateException("a node alone has no coordinator");
    }

    @Override
    public HintedHandoff hints() {
        throw new IllegalStateException("a node alone keeps no hints");
    }

    @Override
    public AntiEntropyRepair repair() {
        throw new IllegalStateException("a node alone has no peer to repair from");
    }
}
