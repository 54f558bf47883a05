package io.ringbase.cli;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.http.HttpServerConfig;
import io.ringbase.http.RingbaseHttpServer;
import io.ringbase.storage.LsmEngine;
import io.ringbase.storage.LsmOptions;
import io.ringbase.storage.wal.WalSyncPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;

/**
 * {@code ringbase serve}: runs one node until SIGTERM or Ctrl-C, then stops gracefully (stop
 * accepting, finish in-flight requests, flush, close files) and exits 0.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
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

    @Option(names = "--cluster", split = ",", paramLabel = "URL",
            description = "Comma-separated URLs of all cluster nodes (default: this node alone). "
                    + "This version runs single nodes only: the list may name only this node.")
    List<String> cluster;

    @Option(names = "--self", paramLabel = "URL", description = "This node's URL in --cluster (default: http://localhost:<port>).")
    String self;

    @Option(names = "--wal-sync", defaultValue = "periodic", paramLabel = "always|periodic",
            description = "WAL fsync policy: 'always' fsyncs before acknowledging a write, 'periodic' every "
                    + "--wal-sync-interval-ms (default: ${DEFAULT-VALUE}). Either survives a process kill.")
    String walSync;

    @Option(names = "--wal-sync-interval-ms", defaultValue = "1000", description = "Interval of periodic WAL fsyncs in ms (default: ${DEFAULT-VALUE}).")
    long walSyncIntervalMs;

    @Option(names = "--memtable-size", defaultValue = "16m", description = "Memtable size that triggers a flush (default: ${DEFAULT-VALUE}).")
    ByteSize memtableSize;

    @Option(names = "--max-body-size", defaultValue = "16m", description = "Largest request body accepted; larger gets 413 (default: ${DEFAULT-VALUE}).")
    ByteSize maxBodySize;

    @Option(names = "--workers", defaultValue = "8", description = "Request worker threads (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--queue", defaultValue = "1024", description = "Requests that may wait for a worker; beyond it the node answers 503 (default: ${DEFAULT-VALUE}).")
    int queue;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        NodeConfig config = validate();
        HybridLogicalClock clock = new HybridLogicalClock();
        LsmEngine engine = LsmEngine.open(config.storage());
        clock.observe(engine.maxVersion());
        RingbaseHttpServer server = new RingbaseHttpServer(config.http(), engine, clock);
        int bound;
        try {
            bound = server.start();
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        System.out.println("Ringbase node ready at http://" + displayHost(config.http().host()) + ":" + bound
                + " (data in " + config.storage().dataDir().toAbsolutePath().normalize() + ")");
        System.out.flush();
        stop.await();
        log.info("stopping: finishing in-flight requests, then flushing");
        long started = System.nanoTime();
        try {
            server.close();
        } finally {
            engine.close();
        }
        log.info("stopped in {} ms", (System.nanoTime() - started) / 1_000_000);
        return 0;
    }

    private static String displayHost(String host) {
        return host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host;
    }

    /** The validated configuration of a node. */
    record NodeConfig(HttpServerConfig http, LsmOptions storage) {
    }

    NodeConfig validate() {
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
        checkCluster();
        try {
            HttpServerConfig http = new HttpServerConfig(host, port, (int) maxBodySize.bytes(), workers, queue,
                    HttpServerConfig.DEFAULT_IO_THREADS);
            LsmOptions storage = LsmOptions.defaults(dataDir).withWalSync(policy)
                    .withWalSyncIntervalMs(walSyncIntervalMs).withMemtableBytes(memtableSize.bytes());
            return new NodeConfig(http, storage);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
    }

    private void checkCluster() {
        if (cluster == null || cluster.isEmpty()) {
            return;
        }
        Set<URI> nodes = new LinkedHashSet<>();
        for (String url : cluster) {
            nodes.add(parseUrl(url, "--cluster"));
        }
        URI me = self != null ? parseUrl(self, "--self") : (nodes.size() == 1 ? nodes.iterator().next() : null);
        if (nodes.size() > 1) {
            throw bad("--cluster names " + nodes.size() + " nodes, but this version of Ringbase runs single nodes only; "
                    + "pass only this node's URL (or no --cluster)");
        }
        if (me != null && !nodes.contains(me)) {
            throw bad("--self " + me + " is not in --cluster " + nodes);
        }
    }

    private URI parseUrl(String url, String flag) {
        try {
            URI uri = URI.create(url.trim());
            if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() <= 0) {
                throw new IllegalArgumentException();
            }
            return URI.create("http://" + uri.getHost() + ":" + uri.getPort());
        } catch (IllegalArgumentException e) {
            throw bad(flag + ": '" + url + "' is not a URL of the form http://host:port");
        }
    }

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
