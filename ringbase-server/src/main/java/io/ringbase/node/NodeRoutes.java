package io.ringbase.node;

import io.ringbase.api.Access;
import io.ringbase.api.HttpApi;
import io.ringbase.api.RingView;
import io.ringbase.auth.ClientTokens;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.paxos.PaxosAcceptor;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.rpc.EntryCodec;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.cluster.rpc.MetadataEndpoint;
import io.ringbase.cluster.rpc.PeerGate;
import io.ringbase.cluster.rpc.ReplicaServer;
import io.ringbase.cluster.wire.WireServer;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.LocalKeyValueService;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a node serves over HTTP: the public API on its key-value service and, as added routes, the
 * node-to-node API ({@link InternalProtocol}) on the {@link ReplicaServer}, whose requests carry a key and
 * an entry header beside a value.
 */
public final class NodeRoutes {

    private NodeRoutes() {}

    /**
     * The API of a node, without its reports, admin control and repair (the caller adds them).
     *
     * @param paxos        answers peers' Paxos calls; {@code null}: none (a node alone)
     * @param maxBodyBytes the largest value a PUT may carry, bytes
     */
    static HttpApi.Builder api(
            KeyValueService kv,
            StorageEngine engine,
            HybridLogicalClock clock,
            TimeSource time,
            RequestSigner signer,
            Supplier<Placement> placement,
            RepairSource repairSource,
            PeerGate gate,
            MetadataEndpoint metadata,
            @Nullable PaxosAcceptor paxos,
            int maxBodyBytes) {
        ReplicaServer server = new ReplicaServer(engine, clock, signer, time, placement, repairSource, gate, metadata);
        if (paxos != null) {
            server.withPaxos(paxos);
        }
        RpcRoute rpc = new RpcRoute(server);
        return HttpApi.builder(kv, time, maxBodyBytes)
                .sniffer(new WireServer(server, signer, gate.clusterName()))
                .path(InternalProtocol.ENTRY, "internal_entry", Access.NODE, rpc)
                .path(InternalProtocol.BATCH, "internal_batch", Access.NODE, rpc)
                .prefix(InternalProtocol.PREFIX, "internal_other", Access.NODE, rpc)
                .bodyOverheadBytes(Entry.MAX_KEY_BYTES + EntryCodec.HEADER_SIZE);
    }

    /**
     * What {@code GET /v0/ring} serves of {@code placement}: its epoch, replication factor and current
     * ring (the nodes reads use, NORMAL and LEAVING), each node with the name its weight is hashed from.
     */
    static RingView ringView(Placement placement) {
        Ring ring = placement.current();
        List<RingView.Member> members = new ArrayList<>(ring.size());
        for (int i = 0; i < ring.size(); i++) {
            members.add(new RingView.Member(
                    ring.nodes().get(i).toString(), ring.seedNames().get(i)));
        }
        return new RingView(placement.epoch(), placement.replicationFactor(), members);
    }

    /**
     * The API of a node alone over {@code engine}, with no reports, admin control or secret: the bare server
     * of tests and tools.
     *
     * @param maxBodyBytes the largest value a PUT may carry, bytes
     */
    public static HttpApi standalone(
            StorageEngine engine, HybridLogicalClock clock, TimeSource time, int maxBodyBytes) {
        return standalone(engine, clock, time, maxBodyBytes, () -> ClientTokens.NONE);
    }

    /**
     * As {@link #standalone(StorageEngine, HybridLogicalClock, TimeSource, int)}, with client requests
     * checked against {@code tokens}.
     */
    public static HttpApi standalone(
            StorageEngine engine,
            HybridLogicalClock clock,
            TimeSource time,
            int maxBodyBytes,
            Supplier<ClientTokens> tokens) {
        Topology single = Topology.single("localhost", 1); // a placeholder: a node alone names no URL
        return api(
                        new LocalKeyValueService(engine, clock, time),
                        engine,
                        clock,
                        time,
                        RequestSigner.NONE,
                        () -> Placement.of(single),
                        new RepairSource(engine, new Ring(single), single.self(), 1),
                        PeerGate.alone(single.self().toString(), Membership.of(Membership.DEFAULT_NAME, single)),
                        MetadataEndpoint.NONE,
                        null,
                        maxBodyBytes)
                .tokens(tokens)
                .build();
    }
}
