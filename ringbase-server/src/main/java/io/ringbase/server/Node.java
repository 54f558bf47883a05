package io.ringbase.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.netty.channel.EventLoopGroup;
import io.ringbase.clock.ClockOptions;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.client.RemoteRepairPeer;
import io.ringbase.cluster.client.PeerCallStats;
import io.ringbase.cluster.client.RemoteReplica;
import io.ringbase.cluster.client.ReplicaClient;
import io.ringbase.cluster.client.RequestSigner;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.cluster.hint.HintedHandoff;
import io.ringbase.cluster.repair.AntiEntropyRepair;
import io.ringbase.cluster.repair.RepairOptions;
import io.ringbase.cluster.repair.RepairPeer;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.Liveness;
import io.ringbase.cluster.replication.LocalReplica;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.replication.SpeculativeRetry;
import io.ringbase.http.ClusterContext;
import io.ringbase.http.HttpServerConfig;
import io.ringbase.http.AdminControl;
import io.ringbase.http.NodeReports;
import io.ringbase.http.Operations;
import io.ringbase.metrics.NodeMetrics;
import io.ringbase.metrics.RequestMetrics;
import io.ringbase.status.NodeStatus;
import io.ringbase.status.StatusPage;
import io.ringbase.http.RepairControl;
import io.ringbase.http.RingbaseHttpServer;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.transport.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: engine, cluster services and HTTP API, started by {@link #start} and stopped by
 * {@link #close} (stop accepting, finish in-flight requests, stop cluster services, flush, close files).
 */
public final class Node implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Node.class);

    /** Threads of a coordinator's local reads that wait for the disk (its event loops hand them over). */
    private static final int LOCAL_READ_THREADS = 4;

    /**
     * Everything a node needs, validated by its parts' constructors.
     *
     * @param http             bind address and limits of the HTTP API
     * @param storage          engine options (data directory, WAL policy, memtable size, tombstone grace)
     * @param topology         the cluster (a single node when it has one member)
     * @param replicaTimeoutMs how long the coordinator waits for a replica's answer (ms)
     * @param clusterSecret    the shared HMAC key of internal requests, or {@code null} for none
     * @param hints            bounds of hinted handoff (stored under {@code <data-dir>/hints})
     * @param clock            the clock bound ({@code --max-clock-offset}) and a test-only skew
     * @param metrics          whether requests are counted and {@code /metrics} served (default true)
     * @param accessLog        whether every request is logged on {@code io.ringbase.access} (default false)
     * @param engine           the storage engine ({@code --engine}; default {@link EngineKind#LSM})
     * @param speculativeRetry how a coordinator spreads reads over replicas ({@code --speculative-retry};
     *                         default {@link SpeculativeRetry#DEFAULT})
     */
    public record Config(HttpServerConfig http, LsmOptions storage, Topology topology, long replicaTimeoutMs,
                         byte[] clusterSecret, HintOptions hints, ClockOptions clock, boolean metrics,
                         boolean accessLog, EngineKind engine, SpeculativeRetry speculativeRetry) {
        public Config {
            if (replicaTimeoutMs <= 0) {
                throw new IllegalArgumentException("replica timeout must be positive, got " + replicaTimeoutMs);
            }
            java.util.Objects.requireNonNull(clock, "clock");
            java.util.Objects.requireNonNull(engine, "engine");
            java.util.Objects.requireNonNull(speculativeRetry, "speculativeRetry");
        }

        /** A config with the default speculative retry. */
        public Config(HttpServerConfig http, LsmOptions storage, Topology topology, long replicaTimeoutMs,
                      byte[] clusterSecret, HintOptions hints, ClockOptions clock, boolean metrics, boolean accessLog,
                      EngineKind engine) {
            this(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, metrics, accessLog, engine,
                    SpeculativeRetry.DEFAULT);
        }

        /** This config with another speculative retry policy. */
        public Config withSpeculativeRetry(SpeculativeRetry retry) {
            return new Config(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, metrics, accessLog,
                    engine, retry);
        }

        /** A config on our own engine ({@link EngineKind#LSM}). */
        public Config(HttpServerConfig http, LsmOptions storage, Topology topology, long replicaTimeoutMs,
                      byte[] clusterSecret, HintOptions hints, ClockOptions clock, boolean metrics, boolean accessLog) {
            this(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, metrics, accessLog,
                    EngineKind.LSM);
        }

        /** This config with another storage engine. */
        public Config withEngine(EngineKind kind) {
            return new Config(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, metrics, accessLog,
                    kind, speculativeRetry);
        }

        /** A config with the default clock options ({@link ClockOptions#defaults()}), metrics on and no access log. */
        public Config(HttpServerConfig http, LsmOptions storage, Topology topology, long replicaTimeoutMs,
                      byte[] clusterSecret, HintOptions hints) {
            this(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, ClockOptions.defaults(), true, false);
        }

        /** This config with other clock options. */
        public Config withClock(ClockOptions clock) {
            return new Config(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, metrics, accessLog, engine,
                    speculativeRetry);
        }

        /** This config with metrics on or off. */
        public Config withMetrics(boolean on) {
            return new Config(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, on, accessLog, engine,
                    speculativeRetry);
        }

        /** This config with the access log on or off. */
        public Config withAccessLog(boolean on) {
            return new Config(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, clock, metrics, on, engine,
                    speculativeRetry);
        }
    }

    private final Config config;
    private final ManagedEngine engine;
    private final HybridLogicalClock clock;
    private final RingbaseHttpServer server;
    private final ReplicaClient client;
    private final EventLoopGroup ioGroup;
    private final ScheduledExecutorService scheduler;
    private final ThreadPoolExecutor background;
    private final ThreadPoolExecutor localScans;
    private final ThreadPoolExecutor localWrites;
    private final ThreadPoolExecutor localReads;
    private final Coordinator coordinator;
    private final HintedHandoff hints;
    private final AntiEntropyRepair repair;
    private final RequestMetrics requests;
    private final NodeMetrics metrics;
    private final NodeStatus status;
    private final StatusPage page;
    private int port;

    private Node(Config config) throws IOException {
        this.config = config;
        Topology topology = config.topology();
        this.clock = config.clock().newClock(topology.self().index());
        if (config.clock().testOffsetMs() != 0) {
            log.warn("this node's clock is skewed by {} ms for a test (--test-clock-offset-ms)",
                    config.clock().testOffsetMs());
        }
        this.engine = Engines.open(config.engine(), config.storage());
        long newestStored = engine.maxVersion();
        if (newestStored != Long.MIN_VALUE) { // MIN_VALUE: nothing stored
            clock.observeStored(newestStored);
        }
        if (topology.size() == 1) {
            client = null;
            ioGroup = null;
            scheduler = null;
            background = null;
            localScans = null;
            localWrites = null;
            localReads = null;
            coordinator = null;
            hints = null;
            repair = null;
            requests = config.metrics() ? RingbaseHttpServer.newRequestMetrics() : null;
            metrics = config.metrics() ? new NodeMetrics(BuildInfo.version(), requests, engine::stats, null) : null;
            status = new NodeStatus(this::url, BuildInfo.version(), dataDirName(config), engine::stats, requests, null);
            page = new StatusPage(status, List.of());
            server = new RingbaseHttpServer(config.http(), engine, clock, null, null, operations(config));
            return;
        }
        RequestSigner signer = config.clusterSecret() == null ? null : new RequestSigner(config.clusterSecret());
        // One set of event loops for the HTTP server and the replica client: a request coordinated on a
        // loop sends its replica calls and reads their answers on that same loop (see io.ringbase.transport)
        ioGroup = Transport.newEventLoopGroup(config.http().ioThreads(), RingbaseHttpServer.IO_THREAD_NAME);
        client = new ReplicaClient(ReplicaClient.ClientConfig.defaults(config.replicaTimeoutMs()), signer, ioGroup);
        localScans = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(256),
                r -> daemon(r, "ringbase-local-scan"), new ThreadPoolExecutor.AbortPolicy());
        // a coordinator's local write that would wait (a flush behind) runs here, off the event loop
        localWrites = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1024),
                r -> daemon(r, "ringbase-local-write"), new ThreadPoolExecutor.AbortPolicy());
        // a coordinator's local read that would wait for the disk (a table out of the page cache) runs
        // here: several threads, so that reads from the device overlap
        localReads = new ThreadPoolExecutor(LOCAL_READ_THREADS, LOCAL_READ_THREADS, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(1024), r -> daemon(r, "ringbase-local-read"),
                new ThreadPoolExecutor.AbortPolicy());
        List<Replica> replicas = new ArrayList<>();
        for (NodeId n : topology.nodes()) {
            replicas.add(n.equals(topology.self()) ? new LocalReplica(n, engine, localScans, localWrites, localReads)
                    : new RemoteReplica(n, client));
        }
        Liveness liveness = new Liveness(topology.size());
        background = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(4096),
                r -> daemon(r, "ringbase-read-repair"), new ThreadPoolExecutor.AbortPolicy());
        hints = HintedHandoff.open(config.storage().dataDir().resolve("hints"), topology,
                n -> replicas.get(n.index()), config.hints(), config.storage().walSync());
        hints.start();
        coordinator = new Coordinator(topology, replicas, liveness, hints::hint, clock, background,
                config.speculativeRetry(), new SpeculationTimers(ioGroup));
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "ringbase-liveness"));
        scheduler.scheduleWithFixedDelay(() -> probePeers(replicas, liveness, client.stats(), topology.self()),
                Liveness.PROBE_INTERVAL_MS,
                Liveness.PROBE_INTERVAL_MS, TimeUnit.MILLISECONDS);
        RepairSource repairSource = new RepairSource(engine, coordinator.ring(), topology.self(), topology.size());
        List<RepairPeer> peers = new ArrayList<>();
        RepairOptions repairOptions = RepairOptions.defaults();
        for (Replica r : replicas) {
            if (r instanceof RemoteReplica remote) {
                peers.add(new RemoteRepairPeer(remote, repairOptions.callTimeoutMs()));
            }
        }
        repair = new AntiEntropyRepair(repairSource, engine, clock, peers, repairOptions,
                System::currentTimeMillis);
        RepairControl control = new RepairControl() {
            @Override
            public boolean start() {
                return repair.start();
            }

            @Override
            public String statusJson() {
                return repair.toJson();
            }
        };
        requests = config.metrics() ? RingbaseHttpServer.newRequestMetrics() : null;
        ClusterFigures figures = new ClusterFigures(topology, liveness, client.stats(), hints, coordinator, repair);
        metrics = config.metrics() ? new NodeMetrics(BuildInfo.version(), requests, engine::stats, figures) : null;
        status = new NodeStatus(this::url, BuildInfo.version(), dataDirName(config), engine::stats, requests, figures);
        List<String> others = new ArrayList<>();
        for (NodeId n : topology.nodes()) {
            if (!n.equals(topology.self())) {
                others.add(n.toString());
            }
        }
        page = new StatusPage(status, others);
        server = new RingbaseHttpServer(config.http(), engine, clock,
                new ClusterContext(coordinator, signer, control, repairSource), ioGroup, operations(config));
    }

    private static String dataDirName(Config config) {
        return config.storage().dataDir().toAbsolutePath().normalize().toString();
    }

    /** Metrics, reports and admin control for the HTTP API; admin requests are signed when there is a secret. */
    private Operations operations(Config config) {
        RequestSigner adminSigner = config.clusterSecret() == null ? null : new RequestSigner(config.clusterSecret());
        return new Operations(requests, reports(), new Admin(), adminSigner, config.accessLog());
    }

    /** Flush, compaction and snapshots of this node's engine for {@code /v0/admin/}. */
    private final class Admin implements AdminControl {
        @Override
        public String flush() throws IOException {
            engine.flush();
            return "{\"flushed\":true,\"sstables\":" + engine.tableCount() + "}";
        }

        @Override
        public String compact() throws IOException {
            int merged = engine.compactAll();
            return "{\"merged\":" + merged + ",\"sstables\":" + engine.tableCount() + "}";
        }

        @Override
        public String snapshot(String name) throws IOException {
            Snapshot snap;
            try {
                snap = engine.snapshot(name);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                throw new IllegalArgumentException("snapshot '" + name + "' already exists: " + e.getFile());
            }
            log.info("snapshot {}: {} SSTables, {} bytes in {}", name, snap.sstables(), snap.bytes(), snap.dir());
            return JsonNodeFactory.instance.objectNode()
                    .put("name", name)
                    .put("dir", snap.dir().toAbsolutePath().normalize().toString())
                    .put("sstables", snap.sstables())
                    .put("bytes", snap.bytes())
                    .toString();
        }
    }

    /** What the HTTP API serves about this node: metrics (unless off), status, the status page. */
    private NodeReports reports() {
        return new NodeReports() {
            @Override
            public byte[] metrics() {
                return metrics == null ? null : metrics.scrape();
            }

            @Override
            public String metricsContentType() {
                return NodeMetrics.CONTENT_TYPE;
            }

            @Override
            public String statusJson() {
                return status.json();
            }

            @Override
            public String statusPage() {
                return page.render();
            }
        };
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** A peer that answered nothing for this long is probed even while believed up (ms). */
    static final long IDLE_PROBE_AFTER_MS = 1_000;

    /**
     * Pings every node marked down or unwritable, and every node believed up that has not answered any
     * call for {@link #IDLE_PROBE_AFTER_MS}: an answer marks it up (and writable or not, as its ping
     * says: {@link Replica#ping()}), an unreachable one down. So the failure
     * detector (and {@code /ready}, the status page) notices a dead peer without client traffic.
     */
    private static void probePeers(List<Replica> replicas, Liveness liveness, PeerCallStats stats, NodeId self) {
        long now = System.currentTimeMillis();
        for (Replica r : replicas) {
            if (r.node().equals(self)) {
                continue;
            }
            boolean up = liveness.isUp(r.node());
            if (up && liveness.unwritableReason(r.node()) == null
                    && now - stats.snapshot(r.node()).lastAnswerMs() < IDLE_PROBE_AFTER_MS) {
                continue;
            }
            r.ping().whenComplete((unwritable, failure) -> {
                if (failure == null) {
                    if (!liveness.isUp(r.node())) {
                        log.info("node {} answers again", r.node());
                    }
                    liveness.markUp(r.node());
                    if (liveness.markWritable(r.node(), unwritable)) {
                        Coordinator.logWritability(r.node(), unwritable);
                    }
                } else if (up && unwrap(failure) instanceof ReplicaException.Unreachable) {
                    log.warn("node {} is unreachable", r.node());
                    liveness.markDown(r.node(), System.currentTimeMillis());
                }
            });
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /**
     * Opens the engine and starts serving.
     *
     * @throws IOException if the engine cannot be opened (damaged files: {@link io.ringbase.storage.CorruptionException};
     *         a locked directory: {@link io.ringbase.storage.DirectoryLockedException})
     * @throws ListenException if the HTTP port cannot be bound (in use), after closing what was opened
     */
    public static Node start(Config config) throws IOException {
        Node node = new Node(config);
        try {
            node.port = node.server.start();
        } catch (Exception e) { // Netty rethrows the bind's checked exception unchecked
            node.close();
            throw new ListenException(config.http().host() + ":" + config.http().port(), e);
        }
        return node;
    }

    /**
     * This node's URL: its {@code --self} in a cluster; for a single node {@code http://host:port} with
     * the bound port ({@code localhost} for a wildcard address).
     */
    public String url() {
        if (config.topology().size() > 1) {
            return config.topology().self().toString();
        }
        String host = config.http().host();
        return "http://" + (host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host) + ":" + port;
    }

    /** The bound HTTP port. */
    public int port() {
        return port;
    }

    public Config config() {
        return config;
    }

    /** The engine (for tests and admin). */
    public ManagedEngine engine() {
        return engine;
    }

    /** Anti-entropy repair, or {@code null} on a single node. */
    public AntiEntropyRepair repair() {
        return repair;
    }

    /** Hinted handoff, or {@code null} on a single node. */
    public HintedHandoff hints() {
        return hints;
    }

    /** The coordinator, or {@code null} on a single node. */
    public Coordinator coordinator() {
        return coordinator;
    }

    /** How long {@link #close} waits for a read-repair write that is already running (ms). */
    private static final long READ_REPAIR_STOP_MS = 10_000;

    /**
     * Drops the queued read repairs (best effort: the next read repairs again) and waits for the one
     * running, without interrupting it: an interrupt inside a local engine write closes the WAL's
     * channel ({@link java.nio.channels.ClosedByInterruptException}) and poisons the WAL, so the final
     * flush would fail.
     */
    private void stopReadRepairs() {
        background.shutdown();
        background.getQueue().clear();
        try {
            if (!background.awaitTermination(READ_REPAIR_STOP_MS, TimeUnit.MILLISECONDS)) {
                log.warn("a read repair is still running after {} ms; closing anyway", READ_REPAIR_STOP_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            server.close();
            if (scheduler != null) {
                scheduler.shutdownNow();
                repair.close(); // aborts a running repair
                stopReadRepairs();
                localScans.shutdown(); // no interrupts: an interrupted file channel would close under the engine
                localWrites.shutdown();
                localReads.shutdown();
                try {
                    localWrites.awaitTermination(5, TimeUnit.SECONDS); // queued writes finish before the engine closes
                    localReads.awaitTermination(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                hints.close(); // stores what is queued, stops delivery
                client.close();
                ioGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        } finally {
            engine.close();
        }
    }
}
