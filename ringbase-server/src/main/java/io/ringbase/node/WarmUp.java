package io.ringbase.node;

import io.ringbase.aot.TrainingLoad;
import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.Topology;
import io.ringbase.storage.DataDirectory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The warm-up a node runs before it opens its own data and listens ({@code ringbase serve --warm-up}): a
 * scratch node on a loopback port and an empty temporary data directory, with a 4 MiB memtable, under
 * {@link TrainingLoad} for the given time, then closed and its directory deleted.
 *
 * <p>Why: a JVM that has just started runs the request path in the interpreter and then in C1 code while
 * C2 compiles it, on the same CPU as the requests. At 30,000 PUT/s the first second of a fresh node falls
 * hundreds of milliseconds behind, and the first flush and compaction make the JIT recompile storage code
 * again. The ahead-of-time cache (JEP 483, 514, 515) gives classes and profiles but no compiled code, so the
 * warm-up does the compiling before the node is ready: the scratch node runs the same classes as the real
 * one (the same engine, compaction strategy and WAL policy, its flushes and compactions included), so the
 * code the JIT compiles for it is the code the real node runs. It costs the given time at start.
 */
public final class WarmUp {

    /**
     * The memtable of a node's scratch node (bytes): small enough that the load can fill it, so that the flush
     * path may run during the warm-up without a final flush at the end (about 440 entries of the load fill
     * it; a 500 ms warm-up answers about 800-1,700 requests on a busy 2-CPU machine, so it flushes 0-1 times).
     */
    public static final long NODE_MEMTABLE_BYTES = 256L << 10;

    /** The memtable of {@code ringbase aot-train}'s longer run (bytes): it flushes and compacts many times. */
    public static final long TRAINING_MEMTABLE_BYTES = 4L << 20;

    /** Connections of a node's warm-up, each with one request in flight. */
    public static final int CONNECTIONS = 8;

    /** What a warm-up did: the requests answered per phase, and how long it took, start and stop included (ms). */
    public record Result(TrainingLoad.Result load, long elapsedMs) {}

    private WarmUp() {}

    /**
     * Runs a warm-up for {@code duration} on a scratch node derived from {@code config}: its engine kind,
     * storage options (WAL policy, compaction, caches) and request settings, but alone, on
     * {@code 127.0.0.1} port 0, with its data in a temporary directory and a memtable of
     * {@code memtableBytes}. Nothing of {@code config}'s data directory is touched. The scratch node is closed
     * without a final flush, since its directory is deleted.
     *
     * <p>{@code ringbase aot-train} runs the same, longer, in the JVM that records the ahead-of-time cache.
     *
     * @param config      the real node's config
     * @param duration    how long the load runs, positive
     * @param connections connections of the load, 1-256 ({@link #CONNECTIONS} for a node's warm-up)
     * @param memtableBytes the scratch node's memtable, bytes ({@link #NODE_MEMTABLE_BYTES} for a node's
     *                    warm-up, {@link #TRAINING_MEMTABLE_BYTES} for {@code aot-train})
     * @return the requests answered and the time taken
     * @throws IOException if the scratch node cannot start or a request of the load fails
     * @throws IllegalArgumentException if {@code duration} or {@code connections} is out of range
     */
    public static Result run(NodeConfig config, Duration duration, int connections, long memtableBytes)
            throws IOException, InterruptedException {
        long started = System.nanoTime();
        Path dir = Files.createTempDirectory("ringbase-warm-up-");
        try {
            TrainingLoad.Result result;
            Node node = Node.start(scratch(config, dir, memtableBytes));
            try {
                result = TrainingLoad.run(new InetSocketAddress("127.0.0.1", node.port()), duration, connections);
            } finally {
                node.discard(); // its directory goes next: a final flush would be time for nothing
            }
            return new Result(result, (System.nanoTime() - started) / 1_000_000);
        } finally {
            DataDirectory.deleteTree(dir);
        }
    }

    /** The scratch node's config: {@code config}'s engine and settings, alone, on loopback, in {@code dir}. */
    static NodeConfig scratch(NodeConfig config, Path dir, long memtableBytes) {
        HttpServerConfig http = config.http();
        return new NodeConfig(
                new HttpServerConfig(
                        "127.0.0.1",
                        0,
                        http.maxBodyBytes(),
                        http.workerThreads(),
                        http.queueCapacity(),
                        http.ioThreads(),
                        http.inlinePointRequests(),
                        http.requestTimeoutMs(),
                        http.idleTimeoutMs(),
                        http.maxConnections(),
                        http.scanIdleTimeoutMs()),
                config.storage()
                        .withDataDir(dir)
                        .withMemtableBytes(memtableBytes)
                        .withTombstoneGraceMs(0),
                Topology.single("127.0.0.1", 1), // a node alone never calls itself by its URL (as serve's)
                config.replicaTimeoutMs(),
                config.clusterSecret(),
                config.hints(),
                config.clock(),
                config.metrics(),
                false,
                config.engine(),
                config.speculativeRetry(),
                config.time(),
                config.clusterName());
    }
}
