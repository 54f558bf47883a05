package io.ringbase.node;

import io.netty.channel.EventLoopGroup;
import io.ringbase.api.HttpApi;
import io.ringbase.api.RingbaseHttpServer;
import io.ringbase.auth.ClientTokens;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.elastic.ElasticMembership;
import io.ringbase.cluster.elastic.FoundingCheck;
import io.ringbase.cluster.elastic.JoinBootstrap;
import io.ringbase.cluster.hint.HintedHandoff;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.repair.AntiEntropyRepair;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.rpc.MetadataClient;
import io.ringbase.functions.FunctionLimits;
import io.ringbase.functions.Jobs;
import io.ringbase.observe.FunctionSource;
import io.ringbase.observe.NodeMetrics;
import io.ringbase.observe.NodeStatus;
import io.ringbase.observe.RequestHistory;
import io.ringbase.observe.RequestMetrics;
import io.ringbase.observe.StatusPage;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.tls.PeerKeys;
import io.ringbase.tls.ServerTls;
import io.ringbase.tls.TlsOptions;
import io.ringbase.transport.Transport;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: engine, membership services and HTTP API, started by {@link #start} and stopped by
 * {@link #close} (stop accepting, finish in-flight requests, stop the cluster services, flush, close files).
 *
 * <p>Assembly: every part is registered with the node's {@link Resources} as it opens, so a start that
 * fails half way releases what it had opened, and {@link #close} closes the parts in the reverse order.
 * Whether the node is alone is decided once, here ({@link Topology#isAlone()}): a node alone gets
 * {@link StandaloneServices}, a member of a larger cluster {@link ClusterServices}; the HTTP API, the
 * node-to-node API, metrics and status are built the same way on either.
 */
public final class Node implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Node.class);

    private final NodeConfig config;
    private final Resources resources;
    private volatile boolean discarding;
    private final ManagedEngine engine;
    private final NodeServices services;
    private final @Nullable LocalMembership membership;
    private final @Nullable ElasticMembership elastic;
    private final int port;
    private final StartupPhases startup;

    private Node(
            NodeConfig config,
            Resources resources,
            JoinBootstrap.@Nullable Joined joined,
            StartupPhases startup,
            Supplier<ClientTokens> tokens,
            @Nullable ServerTls tls)
            throws IOException {
        this.config = config;
        this.resources = resources;
        this.startup = startup;
        TimeSource time = config.time();
        Topology topology = config.topology();
        engine = resources.add(Engines.open(config.engine(), config.storage()), e -> {
            if (discarding) {
                e.closeWithoutFlush();
            } else {
                e.close();
            }
        });
        startup.end("engine");
        long newestStored = engine.maxVersion();
        Membership agreed = config.elastic().isElastic()
                ? Membership.elastic(config.clusterName())
                : Membership.of(config.clusterName(), topology);
        @Nullable ElasticMembership elastic = null;
        if (joined != null && ElasticMembership.holdsVoterPlace(joined.metadata(), topology.self())) {
            // a founding node's replacement, or a node that took a voter's place before: it runs a metadata server
            elastic = resources.add(
                    ElasticMembership.replacingVoter(
                            topology.self(), joined.metadata(), config.storage().dataDir(), metadataTls(tls)),
                    ElasticMembership::close);
        } else if (joined != null) {
            elastic = resources.add(
                    ElasticMembership.following(
                            metadataClient(config, agreed, tls), topology.self(), joined.metadata()),
                    ElasticMembership::close);
        } else if (config.elastic().isElastic()) {
            elastic = resources.add(
                    ElasticMembership.founding(
                            topology,
                            config.elastic().metadataPortOffset(),
                            config.storage().dataDir(),
                            metadataTls(tls)),
                    ElasticMembership::close);
        }
        // a member's version bits come from the node id its data directory was given, checked against
        // the list here; a node alone is node 0
        @Nullable
        LocalMembership local = topology.isAlone() && elastic == null
                ? null
                : LocalMembership.open( // its thread starts, and is registered, with the cluster services
                        config.storage().dataDir(), agreed, topology, newestStored == Long.MIN_VALUE, time);
        this.membership = local;
        this.elastic = elastic;
        startup.end("membership");
        HybridLogicalClock clock =
                config.clock().newClock(local == null ? 0 : local.identity().nodeId());
        if (config.clock().testOffsetMs() != 0) {
            log.warn(
                    "this node's clock is skewed by {} ms for a test (--test-clock-offset-ms)",
                    config.clock().testOffsetMs());
        }
        if (newestStored != Long.MIN_VALUE) { // MIN_VALUE: nothing stored
            clock.observeStored(newestStored);
        }
        RequestSigner signer = RequestSigner.of(config.clusterSecret());
        // One set of event loops for the HTTP server and the replica client: a request coordinated on a
        // loop sends its replica calls and reads their answers on that same loop (see io.ringbase.transport)
        EventLoopGroup ioGroup = resources.add(
                Transport.newEventLoopGroup(config.http().ioThreads(), RingbaseHttpServer.IO_THREAD_NAME),
                g -> g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS));
        services = local == null
                ? new StandaloneServices(topology, engine, clock, time, agreed)
                : new ClusterServices(
                        config,
                        engine,
                        clock,
                        time,
                        signer,
                        ioGroup,
                        resources,
                        local,
                        elastic,
                        tls == null ? null : tls.client(),
                        tls == null ? null : tls.jdkClient());
        startup.end(local == null ? "services" : "cluster services");
        HttpApi.Builder api = NodeRoutes.api(
                services.kv(),
                engine,
                clock,
                time,
                signer,
                services::placement,
                services.repairSource(),
                services.peerGate(),
                services.metadataEndpoint(),
                services.paxos(),
                config.http().maxBodyBytes());
        @Nullable RequestMetrics requests = config.metrics() ? api.newRequestMetrics() : null;
        @Nullable RequestHistory history = requests != null ? resources.add(new RequestHistory(requests)) : null;
        NodeStatus status = new NodeStatus(
                this::url,
                BuildInfo.version(),
                dataDirName(config),
                engine::stats,
                requests,
                history,
                services.figures(),
                time);
        @Nullable
        NodeMetrics metrics = requests != null // metrics on
                ? new NodeMetrics(BuildInfo.version(), requests, engine::stats, services.figures(), time)
                : null;
        Jobs functions = resources.add(new Jobs(
                services.kv(),
                time,
                FunctionLimits.DEFAULTS,
                config.functionsEngine(),
                Runtime.getRuntime().availableProcessors()));
        io.ringbase.functions.JobCluster jobCluster = services.jobCluster();
        if (jobCluster != null) {
            functions.distribute(jobCluster);
        }
        FunctionSource functionFigures = new JobFigures(functions);
        status.addFunctions(functionFigures);
        if (metrics != null) {
            metrics.addFunctions(functionFigures);
        }
        api.functions(functions)
                .reports(new Reports(
                        metrics,
                        status,
                        new StatusPage(status, peerUrls(services, tls), time, tls == null ? null : tls.jdkClient())))
                .admin(new EngineAdmin(engine))
                .repair(services.repairControl())
                .membership(services.membershipControl())
                .ring(() -> NodeRoutes.ringView(services.placement()))
                .signer(signer)
                .tokens(tokens);
        startup.end("HTTP API");
        RingbaseHttpServer server = resources.add(
                new RingbaseHttpServer(config.http(), api.build(), requests, config.accessLog(), ioGroup, tls));
        try {
            port = server.start();
        } catch (Exception e) { // Netty rethrows the bind's checked exception without declaring it
            throw new ListenException(config.http().host() + ":" + config.http().port(), e);
        }
        startup.end("listening");
    }

    /**
     * Opens the engine and the node's services and starts serving.
     *
     * @throws IOException if the engine cannot be opened (damaged files: {@link io.ringbase.storage.CorruptionException};
     *         a locked directory: {@link io.ringbase.storage.DirectoryLockedException}), or the hint store;
     *         {@link ListenException} if the HTTP port cannot be bound (in use). Whatever had been opened is
     *         closed again first.
     */
    public static Node start(NodeConfig config) throws IOException {
        return start(config, () -> ClientTokens.NONE);
    }

    /**
     * As {@link #start(NodeConfig)}, with every client request checked against {@code tokens}
     * ({@code --token-file}; read per request, so a reloaded file applies at once).
     */
    public static Node start(NodeConfig config, Supplier<ClientTokens> tokens) throws IOException {
        StartupPhases startup = new StartupPhases();
        Resources resources = new Resources();
        try {
            // the TLS files first: unusable ones stop the start before the data directory is touched; the same
            // TLS serves the calls before the node's start (join, founding check) and the node itself
            TlsOptions tlsOptions = config.http().tls();
            @Nullable ServerTls tls = tlsOptions == null ? null : resources.add(ServerTls.open(tlsOptions));
            JoinBootstrap.@Nullable Joined joined = null;
            if (config.elastic().joins()) {
                String joinUrl =
                        java.util.Objects.requireNonNull(config.elastic().joinUrl());
                String selfUrl = config.topology().self().toString();
                try (MetadataClient client = metadataClient(config, Membership.elastic(config.clusterName()), tls)) {
                    joined = JoinBootstrap.join(
                            client,
                            joinUrl,
                            selfUrl,
                            joinerMetadataAddress(config),
                            config.elastic().replaces(),
                            config.storage().dataDir());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while joining through " + joinUrl);
                }
                config = config.withTopology(joined.topology());
                startup.end("join");
            } else if (config.elastic().isElastic()) {
                try (MetadataClient client = metadataClient(config, Membership.elastic(config.clusterName()), tls)) {
                    FoundingCheck.requireOwnLog(
                            client,
                            config.topology(),
                            config.elastic().metadataPortOffset(),
                            config.storage().dataDir(),
                            config.clusterName());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while checking the metadata log");
                }
                startup.end("founding check");
            }
            return new Node(config, resources, joined, startup, tokens, tls);
        } catch (IOException | RuntimeException | Error e) {
            resources.closeAfter(e);
            throw e;
        }
    }

    /**
     * The metadata group's TLS with {@code https://} cluster URLs: the node's own certificate, key and CA, as
     * reloading JDK managers (a renewed certificate applies to the Raft handshakes that follow); {@code null}
     * (a plain metadata port) otherwise.
     */
    private static @Nullable PeerKeys metadataTls(@Nullable ServerTls tls) {
        return tls == null ? null : tls.peerKeys();
    }

    /** The peers' URLs as clients call them: {@code https://} when the nodes call each other over TLS. */
    private static Supplier<List<String>> peerUrls(NodeServices services, @Nullable ServerTls tls) {
        if (tls == null || tls.client() == null) {
            return services::peerUrls;
        }
        return () -> services.peerUrls().stream().map(Topology::overTls).toList();
    }

    /** A client of other nodes' metadata endpoints, signed with the cluster secret. */
    private static MetadataClient metadataClient(NodeConfig config, Membership membership, @Nullable ServerTls tls) {
        return new MetadataClient(
                RequestSigner.of(config.clusterSecret()),
                membership.digestHex(),
                config.time(),
                Math.max(1_000, config.replicaTimeoutMs()),
                tls == null ? null : tls.jdkClient());
    }

    /** The metadata address recorded for a joining node, which runs no metadata server: its HTTP address + offset. */
    private static String joinerMetadataAddress(NodeConfig config) {
        var self = config.topology().self();
        return self.host() + ":"
                + Math.min(65535, self.port() + config.elastic().metadataPortOffset());
    }

    /**
     * This node's URL: its {@code --self} in a cluster ({@code https://} with TLS); for a node alone
     * {@code http://host:port} or {@code https://host:port} with the bound port ({@code localhost} for a
     * wildcard address).
     */
    public String url() {
        if (!config.topology().isAlone()) {
            String self = config.topology().self().toString(); // the node's identity, always http://
            return config.http().tls() != null ? "https" + self.substring("http".length()) : self;
        }
        String host = config.http().host();
        return (config.http().tls() != null ? "https://" : "http://")
                + (host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host) + ":" + port;
    }

    /** How long each phase of this node's start took, for the line logged at ready. */
    public StartupPhases startupPhases() {
        return startup;
    }

    /** The bound HTTP port. */
    public int port() {
        return port;
    }

    public NodeConfig config() {
        return config;
    }

    /** The engine (for tests and admin). */
    public ManagedEngine engine() {
        return engine;
    }

    /** This node's membership from the cluster metadata log; empty for a static cluster. */
    public Optional<ElasticMembership> elastic() {
        return Optional.ofNullable(elastic);
    }

    /** This node's identity and state in its cluster; empty for a node alone. */
    public Optional<LocalMembership> membership() {
        return Optional.ofNullable(membership);
    }

    /**
     * Anti-entropy repair.
     *
     * @throws IllegalStateException on a node alone
     */
    public AntiEntropyRepair repair() {
        return services.repair();
    }

    /**
     * Hinted handoff.
     *
     * @throws IllegalStateException on a node alone
     */
    public HintedHandoff hints() {
        return services.hints();
    }

    /**
     * The coordinator.
     *
     * @throws IllegalStateException on a node alone
     */
    public Coordinator coordinator() {
        return services.coordinator();
    }

    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static String dataDirName(NodeConfig config) {
        return config.storage().dataDir().toAbsolutePath().normalize().toString();
    }

    /**
     * Stops the node: the HTTP server (finishing in-flight requests), then the cluster services, the event
     * loops and last the engine (flushing the memtable), the reverse of the order they opened in.
     */
    @Override
    public void close() throws IOException {
        resources.close();
    }

    /**
     * Closes the node as {@link #close()} does, but its engine without the final flush: for a node whose
     * data directory is deleted right after (the warm-up's scratch node), whose flush would be work for
     * nothing.
     *
     * @throws IOException as {@link #close()}
     */
    public void discard() throws IOException {
        discarding = true;
        resources.close();
    }
}
