package io.ringbase.node;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.ringbase.api.MembershipControl;
import io.ringbase.api.RepairControl;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.elastic.ElasticMembership;
import io.ringbase.cluster.elastic.MoveContext;
import io.ringbase.cluster.hint.HintedHandoff;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.cluster.paxos.PaxosAcceptor;
import io.ringbase.cluster.paxos.PaxosAdmission;
import io.ringbase.cluster.paxos.PaxosProposer;
import io.ringbase.cluster.paxos.PaxosStore;
import io.ringbase.cluster.proxy.ClusterKeyValueService;
import io.ringbase.cluster.repair.AntiEntropyRepair;
import io.ringbase.cluster.repair.RepairOptions;
import io.ringbase.cluster.repair.RepairPeer;
import io.ringbase.cluster.repair.RepairSchedule;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.repair.RepairStatus;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.Liveness;
import io.ringbase.cluster.replication.LocalReplica;
import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.SpeculationTimers;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.rpc.MetadataClient;
import io.ringbase.cluster.rpc.MetadataEndpoint;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.cluster.rpc.PeerGate;
import io.ringbase.cluster.rpc.RemoteHello;
import io.ringbase.cluster.rpc.RemoteRepairPeer;
import io.ringbase.cluster.rpc.RemoteReplica;
import io.ringbase.cluster.rpc.RemoteStreamPeer;
import io.ringbase.cluster.rpc.ReplicaCalls;
import io.ringbase.cluster.rpc.ReplicaClient;
import io.ringbase.cluster.streaming.StreamOptions;
import io.ringbase.cluster.wire.PeerProtocol;
import io.ringbase.cluster.wire.WireClient;
import io.ringbase.kv.KeyValueService;
import io.ringbase.observe.ClusterSource;
import io.ringbase.storage.ManagedEngine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services of a node in a cluster of more than one, opened in order and registered with the node's
 * {@link Resources} as they open (so they close in the reverse order): the replica client on the node's
 * event loops, the local replica's thread pools, hinted handoff (an engine of its own under
 * {@code <data-dir>/hints}), the coordinator with read repair and speculative retry, the failure
 * detector's prober and anti-entropy repair. It gives the node its {@link KeyValueService}, the repair
 * behind {@code /v0/admin/repair} and the figures metrics and status read.
 */
final class ClusterServices implements NodeServices {

    private static final Logger log = LoggerFactory.getLogger(ClusterServices.class);

    /** Threads of a coordinator's local reads that wait for the disk (its event loops hand them over). */
    private static final int LOCAL_READ_THREADS = 4;

    /** How long a stop waits for a read-repair write that is already running (ms). */
    private static final long READ_REPAIR_STOP_MS = 10_000;

    /** How long one streaming page request may take, ms. */
    private static final long STREAM_CALL_TIMEOUT_MS = 30_000;

    /** How often a replacement's streaming logs its progress, ms. */
    private static final long STREAM_PROGRESS_LOG_MS = 10_000;

    private final LocalMembership membership;
    private final @Nullable ElasticMembership elastic;
    private final ManagedEngine engine;
    private final String selfUrl;
    private final Coordinator coordinator;
    private final Placement initialPlacement;
    private volatile @Nullable Coordinator opened; // the coordinator once it is open
    private final HintedHandoff hints;
    private final AntiEntropyRepair repair;
    private final RepairSource repairSource;
    private final KeyValueService kv;
    private final PaxosAcceptor paxos;
    private final ClusterSource figures;
    private final List<String> peerUrls = new ArrayList<>();
    private final ClusterJobs jobCluster;
    private final ReplicaCalls fast; // the binary protocol's client, or NONE with --internal-protocol http

    /**
     * Opens the cluster services of {@code config}'s node, registering each with {@code resources}.
     *
     * @throws IOException if the hint store cannot be opened (what was opened before stays registered)
     */
    ClusterServices(
            NodeConfig config,
            ManagedEngine engine,
            HybridLogicalClock clock,
            TimeSource time,
            RequestSigner signer,
            EventLoopGroup ioGroup,
            Resources resources,
            LocalMembership membership,
            @Nullable ElasticMembership elastic,
            @Nullable Supplier<SslContext> peerTls,
            @Nullable Supplier<SSLContext> peerJdkTls)
            throws IOException {
        this.elastic = elastic;
        this.engine = engine;
        // a node serves reads once it holds its data: by its peers' memory (a wiped node) and, when the
        // membership comes from the metadata log, by its state there (a joining node)
        ReadGate gate = elastic == null
                ? membership
                : () -> {
                    String refusal = membership.readRefusal();
                    return refusal != null ? refusal : elastic.readRefusal();
                };
        Topology topology = config.topology();
        this.membership = membership;
        this.selfUrl = topology.self().toString();
        this.initialPlacement = Placement.of(topology);
        ReplicaClient client = resources.add(
                new ReplicaClient(
                        ReplicaClient.ClientConfig.defaults(config.replicaTimeoutMs()),
                        signer,
                        ioGroup,
                        time,
                        membership.membership(),
                        peerTls),
                ReplicaClient::close);
        ReplicaCalls fast = ReplicaCalls.NONE;
        if (config.peerProtocol() == PeerProtocol.V2) {
            WireClient wire = resources.add(
                    new WireClient(
                            config.replicaTimeoutMs(),
                            signer,
                            ioGroup,
                            new WireClient.Identity(
                                    membership.membership().clusterName(),
                                    topology.self().toString(),
                                    membership.membership().digestHex()),
                            client.stats(),
                            peerTls),
                    WireClient::close);
            if (elastic != null) {
                wire.sendEpoch(elastic::epoch);
            }
            fast = wire;
        }
        this.fast = fast;
        ThreadPoolExecutor localScans = pool(2, 256, "ringbase-local-scan");
        // a coordinator's local write that would wait (a flush behind) runs here, off the event loop
        ThreadPoolExecutor localWrites = pool(1, 1024, "ringbase-local-write");
        // a coordinator's local read that would wait for the disk (a table out of the page cache) runs
        // here: several threads, so that reads from the device overlap
        ThreadPoolExecutor localReads = pool(LOCAL_READ_THREADS, 1024, "ringbase-local-read");
        List<Replica> replicas = new ArrayList<>();
        for (NodeId n : topology.nodes()) {
            if (!n.equals(topology.self())) {
                peerUrls.add(n.toString());
            }
            replicas.add(
                    n.equals(topology.self())
                            ? new LocalReplica(n, engine, localScans, localWrites, localReads, gate)
                            : new RemoteReplica(n, client, this.fast));
        }
        hints = resources.add(
                HintedHandoff.open(
                        config.storage().dataDir().resolve("hints"),
                        this::placement,
                        n -> {
                            Coordinator c = opened;
                            return c != null ? c.replica(n) : replicas.get(n.index());
                        },
                        config.hints(),
                        config.storage().walSync(),
                        time),
                HintedHandoff::close);
        // threads start with their first task, so nothing leaks before this line; registered after the
        // hints, they stop before them: their queued writes finish while the hint store is still open
        resources.add(localScans, scans -> stopLocalPools(scans, localWrites, localReads));
        hints.start();
        Liveness liveness = new Liveness(HybridLogicalClock.MAX_NODES);
        ThreadPoolExecutor background =
                resources.add(pool(1, 4096, "ringbase-read-repair"), ClusterServices::stopReadRepairs);
        coordinator = new Coordinator(
                topology,
                replicas,
                liveness,
                hints::hint,
                clock,
                background,
                config.speculativeRetry(),
                new SpeculationTimers(ioGroup),
                time,
                config.writeProtocol());
        opened = coordinator;
        jobCluster = new ClusterJobs(coordinator::placement, coordinator, client);
        repairSource = new RepairSource(engine, coordinator::placement);
        // repair pulls no faster than streaming: both move data in the background, beside client requests
        RepairOptions repairOptions =
                RepairOptions.defaults().withBytesPerSecond(config.elastic().streamBytesPerSecond());
        List<RepairPeer> peers = new ArrayList<>();
        for (Replica r : replicas) {
            if (r instanceof RemoteReplica remote) {
                peers.add(new RemoteRepairPeer(remote, repairOptions.callTimeoutMs()));
            }
        }
        repair = resources.add(
                new AntiEntropyRepair(repairSource, engine, clock, peers, repairOptions, time),
                AntiEntropyRepair::close); // closing aborts a running repair
        ScheduledExecutorService prober = resources.add(
                Executors.newSingleThreadScheduledExecutor(r -> Node.daemon(r, "ringbase-liveness")),
                ScheduledExecutorService::shutdownNow);
        RepairSchedule.start(
                prober, repair, RepairSchedule.intervalFor(config.storage().tombstoneGraceMs()));
        PeerCallStats calls = client.stats();
        var _ = prober.scheduleWithFixedDelay(
                () -> {
                    try {
                        coordinator.probes().probeRound(n -> calls.snapshot(n).lastAnswerMs());
                    } catch (RuntimeException e) { // thrown out of the task, it would cancel every later probe silently
                        log.error("probing the peers failed; retrying in {} ms", Liveness.PROBE_INTERVAL_MS, e);
                    }
                },
                Liveness.PROBE_INTERVAL_MS,
                Liveness.PROBE_INTERVAL_MS,
                TimeUnit.MILLISECONDS);
        // registered last, it stops first: no hello or replacement step runs into a closed client or repair
        resources.add(membership, LocalMembership::close);
        membership.start(new RemoteHello(client, topology.self().toString()), this::streamFromPeers);
        if (elastic != null) {
            elastic.attach(coordinator, n -> new RemoteReplica(n, client, this.fast));
            client.sendEpoch(elastic::epoch);
            elastic.start(new MoveContext(
                    engine,
                    clock,
                    config.storage().dataDir(),
                    StreamOptions.defaults().withBytesPerSecond(config.elastic().streamBytesPerSecond()),
                    n -> new RemoteStreamPeer((RemoteReplica) coordinator.replica(n), STREAM_CALL_TIMEOUT_MS),
                    coordinator::replica,
                    new MetadataClient(
                            signer,
                            membership.membership().digestHex(),
                            time,
                            Math.max(1_000, config.replicaTimeoutMs()),
                            peerJdkTls),
                    config.replicaTimeoutMs()));
        }
        // compare-and-set: this node's acceptor (its state in an engine of its own under <data-dir>/paxos) and
        // proposer; the pool runs the local acceptor's calls, which wait for fsync, and stops before the store
        PaxosStore paxosStore = resources.add(
                PaxosStore.open(config.storage().dataDir().resolve("paxos"), time::currentTimeMillis),
                PaxosStore::close);
        // a node without its data answers no Paxos call, but a moving one (joining, replacing) answers those
        // of its epoch for the keys it is pending for: its promise counts, its read is ignored
        paxos = new PaxosAcceptor(
                engine,
                paxosStore,
                clock,
                new PaxosAdmission(coordinator::placement, membership, elastic == null ? ReadGate.OPEN : elastic));
        ThreadPoolExecutor paxosPool = resources.add(pool(2, 1024, "ringbase-paxos"), ClusterServices::stopPaxos);
        LongConsumer sawEpoch = elastic == null ? epoch -> {} : elastic::sawEpoch;
        PaxosProposer proposer = new PaxosProposer(
                coordinator::placement,
                coordinator::replica,
                paxos,
                sawEpoch,
                paxosPool,
                clock,
                time,
                PaxosProposer.deadlineMs(config.replicaTimeoutMs()));
        kv = new ClusterKeyValueService(coordinator, engine, clock, time, proposer);
        figures =
                new ClusterFigures(liveness, client.stats(), hints, coordinator, repair, membership, elastic, proposer);
    }

    /**
     * One anti-entropy repair against every peer, started here or already running (an operator's): a node
     * that lost its data has it back when one ends {@link RepairStatus.Outcome#OK}.
     */
    private boolean streamFromPeers() throws InterruptedException {
        var _ = repair.start(); // false: a run is under way already, and its outcome counts as well
        while (!repair.awaitIdle(STREAM_PROGRESS_LOG_MS)) {
            RepairStatus.Run p = repair.status().progress();
            log.info(
                    "replacement: {}/{} ranges streamed, {} keys received",
                    p.rangesDone(),
                    p.rangesTotal(),
                    p.keysReceived());
        }
        RepairStatus.Run last = repair.status().lastRun();
        return last != null && last.outcome() == RepairStatus.Outcome.OK;
    }

    @Override
    public Placement placement() {
        Coordinator c = opened;
        return c == null ? initialPlacement : c.placement(); // hints recovered before the coordinator opens
    }

    @Override
    public MembershipControl membershipControl() {
        ElasticMembership m = elastic;
        if (m == null) {
            return MembershipControl.NONE;
        }
        return new MembershipControl() {
            @Override
            public String decommission() {
                m.decommission();
                return changeJson();
            }

            @Override
            public String changeJson() {
                return ElasticStatus.moveJson(m);
            }

            @Override
            public String remove(int nodeId) {
                try {
                    return "{\"removed\":" + nodeId + ",\"epoch\":" + m.remove(nodeId) + "}";
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }

            @Override
            public String cleanup() throws IOException {
                long dropped = m.cleanup(engine);
                return "{\"dropped\":" + dropped + ",\"epoch\":" + m.epoch() + "}";
            }
        };
    }

    @Override
    public MetadataEndpoint metadataEndpoint() {
        return elastic == null ? MetadataEndpoint.NONE : elastic;
    }

    @Override
    public PeerGate peerGate() {
        return PeerGate.of(selfUrl, membership);
    }

    /** The key-value service: requests coordinated over the key's replicas. */
    @Override
    public PaxosAcceptor paxos() {
        return paxos;
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
    public RepairControl repairControl() {
        return new RepairControl() {
            @Override
            public boolean start() {
                return repair.start();
            }

            @Override
            public String statusJson() {
                return repair.toJson();
            }
        };
    }

    @Override
    public Optional<ClusterSource> figures() {
        return Optional.of(figures);
    }

    @Override
    public List<String> peerUrls() {
        if (elastic == null) {
            return List.copyOf(peerUrls);
        }
        Placement p = placement();
        List<String> urls = new ArrayList<>();
        for (NodeId n : p.nodes()) {
            if (!n.equals(p.self())) {
                urls.add(n.toString());
            }
        }
        return urls;
    }

    @Override
    public io.ringbase.functions.JobCluster jobCluster() {
        return jobCluster;
    }

    @Override
    public Coordinator coordinator() {
        return coordinator;
    }

    @Override
    public HintedHandoff hints() {
        return hints;
    }

    @Override
    public AntiEntropyRepair repair() {
        return repair;
    }

    /** Lets the running and queued local Paxos calls finish (no interrupt: the store's WAL would close). */
    private static void stopPaxos(ThreadPoolExecutor pool) throws InterruptedException {
        pool.shutdown();
        if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
            log.warn("a Paxos call is still running after 5 s; closing its store anyway");
        }
    }

    private static ThreadPoolExecutor pool(int threads, int queue, String name) {
        return new ThreadPoolExecutor(
                threads,
                threads,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queue),
                r -> Node.daemon(r, name),
                new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * Stops the local replica's pools without interrupts (an interrupted file channel would close under
     * the engine); queued writes and reads finish before the engine closes.
     */
    private static void stopLocalPools(ThreadPoolExecutor scans, ThreadPoolExecutor writes, ThreadPoolExecutor reads)
            throws InterruptedException {
        scans.shutdown();
        writes.shutdown();
        reads.shutdown();
        writes.awaitTermination(5, TimeUnit.SECONDS);
        reads.awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * Drops the queued read repairs (best effort: the next read repairs again) and waits for the one
     * running, without interrupting it: an interrupt inside a local engine write closes the WAL's
     * channel ({@link java.nio.channels.ClosedByInterruptException}) and poisons the WAL, so the final
     * flush would fail.
     */
    private static void stopReadRepairs(ThreadPoolExecutor background) throws InterruptedException {
        background.shutdown();
        background.getQueue().clear();
        if (!background.awaitTermination(READ_REPAIR_STOP_MS, TimeUnit.MILLISECONDS)) {
            log.warn("a read repair is still running after {} ms; closing anyway", READ_REPAIR_STOP_MS);
        }
    }
}
