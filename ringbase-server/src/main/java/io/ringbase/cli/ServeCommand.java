package io.ringbase.cli;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.auth.TokenFile;
import io.ringbase.auth.TokenFileException;
import io.ringbase.clock.ClockOptions;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.replication.SpeculativeRetry;
import io.ringbase.cluster.replication.WriteProtocol;
import io.ringbase.cluster.wire.PeerProtocol;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ringbase serve}: runs one node until SIGTERM or Ctrl-C, then stops gracefully (stop
 * accepting, finish in-flight requests, flush, close files) and exits 0.
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        description = "Start a Ringbase node. Prints one line with the node's URL once it accepts requests.")
public final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);
    /** Largest value the WAL accepts (16 MiB); bodies above it are refused with 413. */
    static final long MAX_VALUE_BYTES = 16L << 20;

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "0.0.0.0", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--data-dir", defaultValue = "./data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--cluster",
            split = ",",
            paramLabel = "URL",
            description = "Comma-separated URLs (http://host:port, or all https://host:port for TLS between nodes "
                    + "with --tls-cert/--tls-key/--tls-ca) of all cluster nodes, the same list on every node "
                    + "(default: this node alone).")
    List<String> cluster;

    @Option(
            names = "--self",
            paramLabel = "URL",
            description =
                    "This node's URL in --cluster; required when the list has more than one node (default: the only URL of a one-node list).")
    String self;

    @Option(
            names = "--cluster-name",
            defaultValue = Membership.DEFAULT_NAME,
            paramLabel = "NAME",
            description = "The cluster's name, the same on every node: a data directory is refused by a node of "
                    + "another name, and nodes of different names refuse each other's requests "
                    + "(default: ${DEFAULT-VALUE}).")
    String clusterName;

    @Mixin
    ElasticFlags elastic = new ElasticFlags();

    @Option(
            names = "--replication-factor",
            paramLabel = "N",
            description = "Copies of each key: the first N nodes of its placement order hold it, and a request's "
                    + "from may be at most N (its default; ack defaults to a majority of from). The same on every "
                    + "node, 1 to the number of nodes in --cluster (default: the number of nodes in --cluster, "
                    + "so every node holds every key).")
    Integer replicationFactor;

    @Option(
            names = "--engine",
            defaultValue = "lsm",
            paramLabel = "lsm|rocksdb",
            description = "Storage engine: 'lsm' (Ringbase's own) or 'rocksdb' (RocksDB); a data directory "
                    + "keeps the engine that created it (default: ${DEFAULT-VALUE}).")
    String engine;

    @Option(
            names = "--wal-sync",
            defaultValue = "periodic",
            paramLabel = "always|periodic",
            description = "WAL fsync policy: 'always' fsyncs before acknowledging a write, 'periodic' every "
                    + "--wal-sync-interval-ms (default: ${DEFAULT-VALUE}). Either survives a process kill.")
    String walSync;

    @Option(
            names = "--wal-recovery",
            defaultValue = "refuse",
            paramLabel = "refuse|truncate-after-corruption",
            description = "What start-up does with a WAL segment damaged before its end (as a power loss under "
                    + "--wal-sync periodic can leave): 'refuse' to start, naming the file and offset, or "
                    + "'truncate-after-corruption': replay up to the last good record, drop the rest of that segment "
                    + "and log what was dropped (default: ${DEFAULT-VALUE}).")
    String walRecovery;

    @Option(
            names = "--wal-sync-interval-ms",
            defaultValue = "1000",
            description = "Interval of periodic WAL fsyncs in ms (default: ${DEFAULT-VALUE}).")
    long walSyncIntervalMs;

    @Mixin
    CompactionFlags compaction = new CompactionFlags();

    @Mixin
    FunctionsFlags functions = new FunctionsFlags();

    @Option(
            names = "--memtable-size",
            defaultValue = "16m",
            description = "Memtable size that triggers a flush (default: ${DEFAULT-VALUE}).")
    ByteSize memtableSize;

    @Option(
            names = "--block-cache-size",
            defaultValue = "0",
            description = "Native memory that caches decompressed "
                    + "SSTable blocks for point reads, e.g. 64m for a skewed read-heavy load; 0 for none "
                    + "(default: ${DEFAULT-VALUE}).")
    String blockCacheSize;

    @Option(
            names = "--index-filter-memory",
            defaultValue = "64m",
            description = "Native memory holding SSTables' indexes and Bloom filters, so that lookups need not "
                    + "read them from the disk once the page cache has lost them; tables past it read them "
                    + "through the page cache; 0 for none (default: ${DEFAULT-VALUE}).")
    String indexFilterMemory;

    @Option(
            names = "--max-body-size",
            defaultValue = "16m",
            description = "Largest request body accepted; larger gets 413 (default: ${DEFAULT-VALUE}).")
    ByteSize maxBodySize;

    @Option(
            names = "--workers",
            defaultValue = "8",
            description = "Request worker threads (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(
            names = "--inline-requests",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Run point requests (GET/PUT/DELETE of one key, replica calls) on the I/O thread that read "
                            + "them instead of handing them to a worker, unless the write would wait for an fsync (--wal-sync "
                            + "always) or a stalled flush. --no-inline-requests always uses the workers (default: ${DEFAULT-VALUE}).")
    boolean inlineRequests;

    @Option(
            names = "--io-threads",
            paramLabel = "N",
            description = "Event-loop threads that read, parse and write requests (default: the CPUs this process may "
                    + "use, " + "as Runtime.availableProcessors() counts them: 1 when pinned to one CPU).")
    Integer ioThreads;

    @Option(
            names = "--request-timeout",
            defaultValue = "30s",
            paramLabel = "DURATION",
            description = "Longest time a request may take to arrive once it has begun; a slower one gets 408 and its "
                    + "connection is closed (default: ${DEFAULT-VALUE}).")
    TimeSpan requestTimeout;

    @Option(
            names = "--idle-timeout",
            defaultValue = "120s",
            paramLabel = "DURATION",
            description = "A connection with no request in progress is closed after this long without a byte from "
                    + "the client (default: ${DEFAULT-VALUE}).")
    TimeSpan idleTimeout;

    @Option(
            names = "--scan-idle-timeout",
            defaultValue = "60s",
            paramLabel = "DURATION",
            description = "A range response whose client takes no byte of it for this long is abandoned and its "
                    + "connection closed, releasing the scan's tables (default: ${DEFAULT-VALUE}).")
    TimeSpan scanIdleTimeout;

    @Option(
            names = "--warm-up",
            defaultValue = "500ms",
            paramLabel = "DURATION",
            description = "Before opening its data and listening, run a scratch node in a temporary directory "
                    + "under load for this long, so that the JIT has compiled the request path when the node "
                    + "says it is ready; 0s for none, at most 60s (default: ${DEFAULT-VALUE}).")
    TimeSpan warmUp;

    @Option(
            names = "--max-connections",
            defaultValue = "4096",
            description = "Most connections open at once; past it new ones are closed at once, with a WARN line "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(
            names = "--queue",
            defaultValue = "1024",
            description =
                    "Requests that may wait for a worker; beyond it the node answers 503 (default: ${DEFAULT-VALUE}).")
    int queue;

    @Option(
            names = "--replica-timeout",
            defaultValue = "1s",
            paramLabel = "DURATION",
            description =
                    "How long a coordinator waits for a replica before counting it as failed (default: ${DEFAULT-VALUE}).")
    TimeSpan replicaTimeout;

    @Option(
            names = "--internal-protocol",
            defaultValue = "v2",
            paramLabel = "PROTOCOL",
            description = "How this node calls its replicas: v2, the binary node-to-node protocol "
                    + "(docs/internal-protocol-v2.md) with HTTP for peers that do not speak it; http, HTTP only. "
                    + "A node accepts both either way (default: ${DEFAULT-VALUE}).")
    String internalProtocol;

    @Option(
            names = "--speculative-retry",
            defaultValue = "99p",
            paramLabel = "POLICY",
            description = "How a coordinator spreads a read over the key's replicas (Cassandra's speculative_retry): "
                    + "Np (50p-99.9p) or Nms send it to ack replicas, this node first and slow ones last, then to one "
                    + "more after the N-th percentile of recent replica read latency or after N ms, and at once when "
                    + "one fails; none: only when one fails; always: to every replica not marked slow at once "
                    + "(default: ${DEFAULT-VALUE}).")
    String speculativeRetry;

    @Option(
            names = "--write-protocol",
            defaultValue = "abd",
            paramLabel = "PROTOCOL",
            description = "How a coordinator makes a quorum write (ack > from/2) linearizable: one-round sends it "
                    + "once under this node's clock, counts only replicas that took it and re-stamps it above a "
                    + "newer version when every replica held one; abd reads the key's version from ack replicas "
                    + "first (one more round trip) (default: ${DEFAULT-VALUE}).")
    String writeProtocol;

    @Option(
            names = "--cluster-secret-file",
            paramLabel = "FILE",
            description =
                    "File holding the shared secret (at least 16 bytes) that signs node-to-node requests; "
                            + "with it, internal requests without a valid HMAC get 403. Use the same file on every node (default: none).")
    Path clusterSecretFile;

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description = "File of client tokens (name, token, permissions read/write/admin/metrics, optional key "
                    + "prefix; docs/operations.md): every request but /health, /ready and node-to-node ones must then "
                    + "carry Authorization: Bearer <token> (401 without, 403 without the permission). Reloaded when it "
                    + "changes; needs --cluster-secret-file (default: none, the API is open).")
    Path tokenFile;

    @Mixin
    TlsFlags tls = new TlsFlags();

    @Option(
            names = "--tombstone-grace",
            defaultValue = "10d",
            paramLabel = "DURATION",
            description = "Age a tombstone must reach before compaction may drop it; run repair on every node "
                    + "within it (default: ${DEFAULT-VALUE}).")
    TimeSpan tombstoneGrace;

    @Option(
            names = "--hint-window",
            defaultValue = "3h",
            paramLabel = "DURATION",
            description = "Hints for a down replica older than this are dropped (anti-entropy repair catches up) "
                    + "(default: ${DEFAULT-VALUE}).")
    TimeSpan hintWindow;

    @Option(
            names = "--hint-max-size",
            defaultValue = "1g",
            paramLabel = "SIZE",
            description = "Total size of stored hints; past it new hints are dropped (default: ${DEFAULT-VALUE}).")
    ByteSize hintMaxSize;

    @Option(
            names = "--max-clock-offset",
            defaultValue = "500ms",
            paramLabel = "DURATION",
            description = "Versions from other nodes more than this ahead of this node's clock are refused "
                    + "(a logged error; 400 to the sender): a skewed clock cannot drag the cluster's clocks "
                    + "forward. Keep node clocks within it with NTP (default: ${DEFAULT-VALUE}).")
    TimeSpan maxClockOffset;

    /** Test-only: skews this node's version clock (the fault-injection suite's clock-skew nemesis). */
    @Option(
            names = "--test-clock-offset-ms",
            defaultValue = "0",
            hidden = true,
            description = "Testing only: add this many ms (may be negative) to the wall clock of this node's versions.")
    long testClockOffsetMs;

    @Option(
            names = "--metrics",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Count requests and serve Prometheus metrics at GET /metrics; --no-metrics counts nothing "
                    + "and answers 404 there (default: ${DEFAULT-VALUE}).")
    boolean metrics;

    @Option(
            names = "--log-format",
            defaultValue = "text",
            paramLabel = "text|json",
            description = "Log line format on stderr: text, or json (one JSON object per line, logback's JsonEncoder); "
                    + "both name the node's URL on every line (default: ${DEFAULT-VALUE}).")
    String logFormat;

    @Option(
            names = "--access-log",
            defaultValue = "false",
            description = "Log every request (client, method, target, status, microseconds) at INFO on the logger "
                    + "io.ringbase.access (default: ${DEFAULT-VALUE}).")
    boolean accessLog;

    /** How often the token file is looked at for a change, ms. */
    private static final long TOKEN_FILE_POLL_MS = 1_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Logging.Format format = switch (logFormat) {
            case "text" -> Logging.Format.TEXT;
            case "json" -> Logging.Format.JSON;
            default -> throw bad("--log-format must be 'text' or 'json', got '" + logFormat + "'");
        };
        try {
            Logging.checkLevel(System.getenv("RINGBASE_LOG_LEVEL"));
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        NodeConfig config;
        try {
            config = validate();
        } catch (SecretException e) {
            return fail(new StartupFailure(StartupFailure.SECRET, e.getMessage()));
        }
        Logging.configure(format, ServeStartup.nodeUrl(config));
        TokenFile tokens = null;
        if (tokenFile != null) {
            try {
                tokens = TokenFile.open(tokenFile, TOKEN_FILE_POLL_MS);
            } catch (TokenFileException e) {
                return fail(
                        new StartupFailure(StartupFailure.SECRET, "--token-file " + tokenFile + " " + e.getMessage()));
            }
        }
        long warmUpMs = ServeStartup.warmUp(config, warmUp);
        Node node;
        try {
            node = tokens == null ? Node.start(config) : Node.start(config, tokens);
        } catch (Exception e) {
            if (tokens != null) {
                tokens.close();
            }
            StartupFailure failure = StartupFailure.of(
                    e, config.storage().dataDir().toAbsolutePath().normalize().toString());
            if (failure.exitCode() == StartupFailure.UNEXPECTED) {
                log.error("the node could not start", e);
            }
            return fail(failure);
        }
        Logging.configure(format, node.url()); // the bound port, if it was 0
        CountDownLatch stop = StopSignal.install();
        String cluster = config.topology().isAlone()
                ? ""
                : ", node " + (config.topology().self().index() + 1) + " of "
                        + config.topology().size() + ", replication factor "
                        + config.topology().replicationFactor();
        ServeStartup.started(node, warmUpMs);
        String open = ServeStartup.openApiWarning(
                config.http().host(), node.port(), config.clusterSecret() != null, tokens != null);
        if (open != null) {
            log.warn(open);
        }
        System.out.println("Ringbase node ready at " + (config.http().tls() != null ? "https" : "http") + "://"
                + ServeStartup.displayHost(config.http().host()) + ":" + node.port() + " (data in "
                + config.storage().dataDir().toAbsolutePath().normalize() + cluster + ")");
        System.out.flush();
        stop.await();
        log.info("stopping: finishing in-flight requests, then flushing");
        long started = System.nanoTime();
        node.close();
        if (tokens != null) {
            tokens.close();
        }
        log.info("stopped in {} ms", (System.nanoTime() - started) / 1_000_000);
        return 0;
    }

    /** Prints {@code failure} as one line on stderr; returns its exit code. */
    private int fail(StartupFailure failure) {
        spec.commandLine().getErr().println("ringbase serve: " + failure.message());
        spec.commandLine().getErr().flush();
        return failure.exitCode();
    }

    /** The cluster secret file cannot be used (exit code {@link StartupFailure#SECRET}). */
    static final class SecretException extends RuntimeException {
        SecretException(String message) {
            super(message);
        }
    }

    NodeConfig validate() {
        if (warmUp.millis() > 60_000) {
            throw bad("--warm-up must be at most 60s, got " + warmUp);
        }
        if (port < 0 || port > 65535) {
            throw bad("--port must be between 0 and 65535, got " + port);
        }
        if (maxBodySize.bytes() > MAX_VALUE_BYTES) {
            throw bad("--max-body-size must be at most 16m (the largest value a WAL record holds), got " + maxBodySize);
        }
        WalSyncPolicy policy = switch (walSync) {
            case "always" -> WalSyncPolicy.ALWAYS;
            case "periodic" -> WalSyncPolicy.PERIODIC;
            default -> throw bad("--wal-sync must be 'always' or 'periodic', got '" + walSync + "'");
        };
        Topology topology = topology();
        boolean alone = topology.isAlone() && elastic.join == null && elastic.metadataPortOffset == 0;
        if (!alone && tombstoneGrace.millis() <= hintWindow.millis()) {
            // a hint delivered after compaction purged the delete it lost to would bring the key back
            throw bad("--tombstone-grace (" + tombstoneGrace + ") must be longer than --hint-window (" + hintWindow
                    + "): a hint delivered after a purged delete would bring the deleted key back");
        }
        byte[] secret = readSecret();
        if (tokenFile != null && secret == null) {
            throw bad("--token-file needs --cluster-secret-file: without it the node-to-node API, which takes no "
                    + "client token, would let anyone read and write around the tokens");
        }
        try {
            HttpServerConfig http = new HttpServerConfig(
                    host,
                    port,
                    (int) maxBodySize.bytes(),
                    workers,
                    queue,
                    ioThreads == null ? HttpServerConfig.defaultIoThreads() : ioThreads,
                    inlineRequests,
                    requestTimeout.millis(),
                    idleTimeout.millis(),
                    maxConnections,
                    scanIdleTimeout.millis(),
                    tls.options(ClusterTls.nodeToNode(cluster, self, elastic, alone, tls)));
            LsmOptions storage = LsmOptions.defaults(dataDir)
                    .withWalSync(policy)
                    .withWalRecovery(WalRecoveryMode.ofFlag(walRecovery))
                    .withWalSyncIntervalMs(walSyncIntervalMs)
                    .withMemtableBytes(memtableSize.bytes())
                    .withBlockCacheBytes(blockCacheBytes())
                    .withPinnedSectionBytes(indexFilterBytes())
                    .withTombstoneGraceMs(alone ? 0 : tombstoneGrace.millis());
            storage = storage.withCompaction(compaction.options());
            HintOptions hints =
                    HintOptions.defaults().withMaxAgeMs(hintWindow.millis()).withMaxTotalBytes(hintMaxSize.bytes());
            ClockOptions clock = new ClockOptions(maxClockOffset.millis(), testClockOffsetMs);
            return new NodeConfig(
                            http,
                            storage,
                            topology,
                            replicaTimeout.millis(),
                            secret,
                            hints,
                            clock,
                            metrics,
                            accessLog,
                            EngineFlag.parse(engine),
                            SpeculativeRetry.parse(speculativeRetry),
                            TimeSource.SYSTEM,
                            clusterName)
                    .withElastic(elastic.options())
                    .withPeerProtocol(PeerProtocol.parse(internalProtocol))
                    .withWriteProtocol(WriteProtocol.parse(writeProtocol))
                    .withFunctionsEngine(functions.engine());
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
    }

    private Topology topology() {
        if (elastic.join != null) {
            if (cluster != null && !cluster.isEmpty()) {
                throw bad(
                        "--join and --cluster exclude each other: a joining node learns the members from the cluster");
            }
            if (self == null) {
                throw bad("--join needs --self, the URL the other nodes will call this node at");
            }
            if (replicationFactor != null) {
                throw bad("--replication-factor is the cluster's: a joining node takes it from the cluster");
            }
            try {
                Topology t = Topology.parse(List.of(self), self); // replaced by the members once joined
                if (!spec.commandLine().getParseResult().hasMatchedOption("--port")) {
                    port = t.self().port();
                } else if (t.self().port() != port) {
                    throw bad("--self " + t.self() + " does not match --port " + port);
                }
                return t;
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage());
            }
        }
        if (cluster == null || cluster.isEmpty()) {
            if (replicationFactor != null && replicationFactor != 1) {
                throw bad("--replication-factor " + replicationFactor
                        + " needs a --cluster of at least that many nodes; a node alone holds 1 copy");
            }
            return Topology.single(host, port == 0 ? 1 : port);
        }
        int rf = replicationFactor == null ? cluster.size() : replicationFactor;
        if (rf < 1 || rf > cluster.size()) {
            throw bad("--replication-factor must be between 1 and " + cluster.size()
                    + " (the number of nodes in --cluster), got " + rf);
        }
        String me = self;
        if (me == null) {
            if (cluster.size() != 1) {
                throw bad("--self is required with a --cluster of " + cluster.size() + " nodes");
            }
            me = cluster.getFirst();
        }
        try {
            Topology t = Topology.parse(cluster, me, rf);
            if (!spec.commandLine().getParseResult().hasMatchedOption("--port")) {
                port = t.self().port(); // the node listens where the others will call it
            } else if (t.self().port() != port) {
                throw bad("--self " + t.self() + " does not match --port " + port);
            }
            return t;
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
    }

    private byte[] readSecret() {
        if (clusterSecretFile == null) {
            return null;
        }
        try {
            return SecretFile.read(clusterSecretFile, "--cluster-secret-file");
        } catch (IllegalArgumentException e) {
            throw new SecretException(e.getMessage());
        }
    }

    private long indexFilterBytes() {
        try {
            return ByteSize.parseOrZero(indexFilterMemory);
        } catch (IllegalArgumentException e) {
            throw bad("--index-filter-memory: " + e.getMessage());
        }
    }

    private long blockCacheBytes() {
        try {
            return ByteSize.parseOrZero(blockCacheSize);
        } catch (IllegalArgumentException e) {
            throw bad("--block-cache-size: " + e.getMessage());
        }
    }

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
