package io.ringbase.bench;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * The validated settings of one {@code ringbase bench} run (a bad value throws {@link IllegalArgumentException}
 * naming it). Defaults are those of the command line.
 *
 * @param workload       what to send (default {@code put})
 * @param keys           key choice of the load runs (default {@code uniform})
 * @param readRatio      share of GETs in the {@code mixed} workload, 0..1 (default 0.5)
 * @param valueSize      bytes per value written (default 100)
 * @param prefill        keys written before read workloads (default {@value #DEFAULT_KEYS}, 0 with {@code url};
 *                       0 for none, and reads then draw from {@link #readKeys()})
 * @param connections    connections of the load generator (default 64)
 * @param ack            replicas that must answer ({@code &ack=}), 0 to leave out (default 0)
 * @param from           replicas asked ({@code &from=}), 0 to leave out (default 0)
 * @param clusterSize    local nodes to start: 1, or 3 for a cluster (ignored with {@code url})
 * @param url            an already running node to load instead of local ones, or null
 * @param sloMs          p99 above this (ms) fails a ladder step (default 10)
 * @param stableFraction stable rate as a fraction of the saturation rate (default 0.8)
 * @param durationS      stable run length in seconds (default 60)
 * @param stepS          ladder step length in seconds (default 5)
 * @param startRate      first ladder rate in requests per second (default 5,000)
 * @param warmupS        seconds of load at the start rate before the ladder, not judged, in two generator runs (default 10; 0 for none)
 * @param maxSteps       most ladder steps (default 12)
 * @param outDir         where report directories go (default {@code bench-reports})
 * @param baseline       an earlier report directory to compare against, or null
 * @param ycsb           YCSB core workload letter A-F instead of the load generator's ladder and stable run, or null
 * @param ycsbRecords    YCSB record count (default 100,000)
 * @param ycsbOps        YCSB operation count (default 500,000)
 * @param ycsbThreads    YCSB client threads (default 16)
 * @param profile        whether to follow the stable run, which never has a profiler attached, with a profiled
 *                       run for the flame graphs (default true)
 * @param serverCpu      CPU the local nodes are pinned to (default 0)
 * @param loadCpu        CPU the load generator is pinned to (default 1)
 * @param commandLine    the arguments as given, for the report
 * @param serveArgs      further flags for the nodes bench starts ({@code --serve-arg}, e.g. {@code --no-metrics});
 *                       none with {@code url}
 * @param loadGenerator  the constant-rate load generator (default {@code rategen})
 */
public record BenchConfig(
        Workload workload,
        KeyChoice keys,
        double readRatio,
        int valueSize,
        long prefill,
        int connections,
        int ack,
        int from,
        int clusterSize,
        URI url,
        double sloMs,
        double stableFraction,
        int durationS,
        int stepS,
        long startRate,
        int warmupS,
        int maxSteps,
        Path outDir,
        Path baseline,
        String ycsb,
        long ycsbRecords,
        long ycsbOps,
        int ycsbThreads,
        boolean profile,
        int serverCpu,
        int loadCpu,
        List<String> commandLine,
        List<String> serveArgs,
        LoadGenerator.Kind loadGenerator) {

    public BenchConfig {
        require(readRatio >= 0 && readRatio <= 1, "--read-ratio must be between 0 and 1, got " + readRatio);
        require(valueSize > 0 && valueSize <= (16 << 20), "--value-size must be 1..16777216 bytes, got " + valueSize);
        require(prefill >= 0, "--prefill must be >= 0, got " + prefill);
        require(connections > 0, "--connections must be positive, got " + connections);
        require(
                (ack == 0 && from == 0) || (ack > 0 && from >= ack),
                "--ack must be at most --from (both positive, or 0 to leave them out), got ack=" + ack + " from="
                        + from);
        require(clusterSize == 1 || clusterSize == 3, "--cluster must be 1 or 3, got " + clusterSize);
        require(sloMs > 0, "--slo-ms must be positive, got " + sloMs);
        require(
                stableFraction > 0 && stableFraction <= 1,
                "--stable-fraction must be in (0, 1], got " + stableFraction);
        require(durationS >= 3, "--duration must be at least 3 s, got " + durationS);
        require(stepS >= 1, "--step-duration must be at least 1 s, got " + stepS);
        require(startRate >= 1, "--start-rate must be positive, got " + startRate);
        require(warmupS >= 0, "--warmup must be >= 0 s, got " + warmupS);
        require(maxSteps >= 1, "--max-steps must be positive, got " + maxSteps);
        require(
                keys != KeyChoice.SEQUENTIAL,
                "--keys sequential: the load generator draws its URLs at random, so load runs take "
                        + "uniform or zipfian keys (the prefill always writes keys in order)");
        require(ycsb == null || ycsb.matches("[A-F]"), "--ycsb must be one of A-F, got " + ycsb);
        require(
                ycsbRecords > 0 && ycsbOps > 0 && ycsbThreads > 0,
                "--ycsb-records, --ycsb-ops and --ycsb-threads must be positive");
        require(
                workload.readsPrefilledKeys() ? prefill > 0 || url != null : true,
                "--workload " + workload.label() + " reads prefilled keys: --prefill must be positive");
        require(
                serveArgs.isEmpty() || url == null,
                "--serve-arg is for the nodes bench starts, not a running --url node");
        commandLine = List.copyOf(commandLine);
        serveArgs = List.copyOf(serveArgs);
    }

    /** Keys a default prefill writes, and that reads draw from with no prefill. */
    public static final long DEFAULT_KEYS = 1_000_000;

    /**
     * How many keys ({@code 0..n-1}, named by {@link KeySpace#key}) the reads draw from: the prefill, or
     * with none, the {@value #DEFAULT_KEYS} keys an earlier bench's default prefill wrote.
     */
    public long readKeys() {
        return prefill > 0 ? prefill : DEFAULT_KEYS;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** The query string suffix for {@code ack}/{@code from}, empty when they are left out. */
    public String replicaQuery() {
        return ack > 0 ? "&ack=" + ack + "&from=" + from : "";
    }

    /** The short name of this run for the report directory, e.g. {@code put} or {@code ycsb-a}. */
    public String runName() {
        return ycsb != null ? "ycsb-" + ycsb.toLowerCase(java.util.Locale.ROOT) : workload.label();
    }
}
