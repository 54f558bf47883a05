package io.ringbase.cli;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringbase cluster}: a local cluster in one process for trying Ringbase out. Starts
 * {@code --nodes} nodes on consecutive ports from {@code --base-port}, all on {@code 127.0.0.1}, with
 * the same topology ({@code http://localhost:<port>} each) and data in {@code <data-dir>/node-<n>};
 * prints one ready line per node and an example; on SIGTERM or Ctrl-C stops every node gracefully and
 * exits 0. Each node is exactly what {@code serve --cluster ... --self ...} would run, with defaults.
 */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        description = "Start a local cluster of several nodes in one process (for trying Ringbase out). "
                + "Prints one line per node once all accept requests; Ctrl-C stops them all.")
public final class ClusterCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ClusterCommand.class);
    /** The loopback address every node binds: a try-out cluster is not reachable from other machines. */
    static final String BIND_HOST = "127.0.0.1";
    /** serve's --replica-timeout default (1 s). */
    static final long REPLICA_TIMEOUT_MS = 1_000;
    /** serve's --tombstone-grace default for a cluster (10 days). */
    static final long TOMBSTONE_GRACE_MS = 10L * 24 * 3600 * 1000;

    @Option(names = "--nodes", defaultValue = "3", description = "Number of nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--replication-factor",
            paramLabel = "N",
            description = "Copies of each key, as serve's --replication-factor, 1 to --nodes "
                    + "(default: --nodes, so every node holds every key).")
    Integer replicationFactor;

    @Option(
            names = "--base-port",
            defaultValue = "8080",
            description = "HTTP port of node 1; node n listens on base-port + n - 1 (default: ${DEFAULT-VALUE}).")
    int basePort;

    @Option(
            names = "--data-dir",
            defaultValue = "./data",
            description =
                    "Parent directory of the nodes' data directories node-1, node-2, ... (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--engine",
            defaultValue = "lsm",
            paramLabel = "lsm|rocksdb",
            description =
                    "Storage engine of every node: 'lsm' (Ringbase's own) or 'rocksdb' (default: ${DEFAULT-VALUE}).")
    String engine;

    @Option(
            names = "--wal-recovery",
            defaultValue = "refuse",
            paramLabel = "refuse|truncate-after-corruption",
            description = "What every node's start does with a WAL segment damaged before its end, as serve's "
                    + "--wal-recovery (default: ${DEFAULT-VALUE}).")
    String walRecovery;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** How long the command waits for its nodes to know each other before it says they are ready, ms. */
    static final long SETTLE_MS = 30_000;

    /**
     * Waits until every node is a full replica its peers know (a new node answers no reads until its peers
     * have said it lost nothing, about a hello round after the last one started), so the example request
     * printed next succeeds; at most {@link #SETTLE_MS}, then says which node is not.
     */
    private static void awaitSettled(List<Node> started) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MS);
        for (int i = 0; i < started.size(); i++) {
            Node n = started.get(i);
            while (!n.membership().map(LocalMembership::isSettled).orElse(true)) {
                if (System.nanoTime() > deadline) {
                    log.warn(
                            "node {} does not answer reads yet after {} ms: its peers have not all greeted it",
                            i + 1,
                            SETTLE_MS);
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
    }

    @Override
    public Integer call() throws Exception {
        List<NodeConfig> configs = validate();
        List<Node> started = new ArrayList<>();
        CountDownLatch stop = StopSignal.install();
        try {
            for (NodeConfig config : configs) {
                started.add(Node.start(config));
            }
        } catch (IOException | RuntimeException e) {
            NodeConfig failed = configs.get(started.size());
            StartupFailure failure = StartupFailure.of(
                    e, failed.storage().dataDir().toAbsolutePath().normalize().toString());
            if (failure.exitCode() == StartupFailure.UNEXPECTED) {
                log.error("node {} could not start", started.size() + 1, e);
            }
            System.err.println(
                    "ringbase cluster: cannot start node " + (started.size() + 1) + ": " + failure.message());
            closeAll(started);
            return failure.exitCode();
        }
        awaitSettled(started);
        ServeStartup.lowerCompilerPriority();
        for (int i = 0; i < started.size(); i++) {
            NodeConfig config = configs.get(i);
            System.out.println("Ringbase node " + (i + 1) + " of " + nodes + " ready at "
                    + config.topology().self() + " (data in "
                    + config.storage().dataDir().toAbsolutePath().normalize() + ")");
        }
        String first = configs.getFirst().topology().self().toString();
        String last = configs.getLast().topology().self().toString();
        System.out.println("Try: curl -X PUT --data-binary hello '" + first + "/v0/entity?id=greeting'; curl '" + last
                + "/v0/entity?id=greeting'   (Ctrl-C stops all nodes)");
        System.out.flush();
        stop.await();
        log.info("stopping {} nodes: finishing in-flight requests, then flushing", started.size());
        long begun = System.nanoTime();
        int failures = closeAll(started);
        log.info("stopped in {} ms", (System.nanoTime() - begun) / 1_000_000);
        return failures == 0 ? 0 : 1;
    }

    /** Closes every node, in reverse start order; returns how many failed to close (each is logged). */
    private static int closeAll(List<Node> started) {
        int failures = 0;
        for (Node node : started.reversed()) {
            try {
                node.close();
            } catch (IOException | RuntimeException e) {
                log.error("node on port {} did not close cleanly", node.port(), e);
                failures++;
            }
        }
        return failures;
    }

    List<NodeConfig> validate() {
        try {
            Logging.checkLevel(System.getenv("RINGBASE_LOG_LEVEL"));
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        if (nodes < 1) {
            throw bad("--nodes must be at least 1, got " + nodes);
        }
        if (basePort < 1 || (long) basePort + nodes - 1 > 65535) {
            throw bad("--base-port must leave room for " + nodes + " ports in 1..65535, got " + basePort);
        }
        int rf = replicationFactor == null ? nodes : replicationFactor;
        if (rf < 1 || rf > nodes) {
            throw bad("--replication-factor must be between 1 and " + nodes + " (--nodes), got " + rf);
        }
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            urls.add("http://localhost:" + (basePort + i));
        }
        EngineKind kind;
        try {
            kind = EngineFlag.parse(engine);
        } catch (IllegalArgumentException e) {
            throw bad("--engine: " + e.getMessage());
        }
        WalRecoveryMode recovery;
        try {
            recovery = WalRecoveryMode.ofFlag(walRecovery);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        List<NodeConfig> configs = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Topology topology = Topology.parse(urls, urls.get(i), rf);
            HttpServerConfig http = HttpServerConfig.defaults(basePort + i).withHost(BIND_HOST);
            LsmOptions storage = LsmOptions.defaults(dataDir.resolve("node-" + (i + 1)))
                    .withTombstoneGraceMs(nodes == 1 ? 0 : TOMBSTONE_GRACE_MS) // as serve does
                    .withWalRecovery(recovery);
            configs.add(new NodeConfig(http, storage, topology, REPLICA_TIMEOUT_MS, null, HintOptions.defaults())
                    .withEngine(kind));
        }
        return configs;
    }

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
