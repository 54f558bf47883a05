package io.ringbase.bench;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringbase bench}: parses the flags into a {@link BenchConfig} and runs {@link BenchRun}. Prints the
 * report directory on stdout at the end; progress goes to stderr. Exit 0 on success, 1 when the run failed
 * (the reason on stderr), 2 on bad flags.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Load test, profile and report in one command: finds the saturation rate with a constant-rate "
                    + "ladder, runs at a fraction of it with latency corrected for coordinated omission (rategen, or oha) and "
                    + "no profiler attached, which the verdict is judged on, measures each node's GC pauses, heap bytes "
                    + "allocated per request and peak RSS over that run, then profiles the node(s) with async-profiler "
                    + "in a separate run at the same rate (its latencies shown 'with profiler', not judged), and writes "
                    + "bench-reports/<date>-<workload>/report.md.",
            "Compiles rategen (cc) or installs oha (crates.io, cargo), and installs async-profiler (Maven Central), "
                    + "into bench/.cache on first use."
        })
public final class BenchCommand implements Callable<Integer> {

    @Option(
            names = "--workload",
            defaultValue = "put",
            paramLabel = "put|get|mixed|range",
            description = "What to send (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(
            names = "--keys",
            defaultValue = "uniform",
            paramLabel = "uniform|zipfian",
            description =
                    "Key choice of the load (default: ${DEFAULT-VALUE}); 'sequential' applies to the prefill only.")
    String keys;

    @Option(
            names = "--read-ratio",
            defaultValue = "0.5",
            description = "Share of GETs in 'mixed', 0..1 (default: ${DEFAULT-VALUE}).")
    double readRatio;

    @Option(
            names = "--value-size",
            defaultValue = "100",
            description = "Value size in bytes (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(
            names = "--prefill",
            paramLabel = "KEYS",
            description = "Keys written before get/mixed/range (default: "
                    + BenchConfig.DEFAULT_KEYS
                    + " on the nodes bench starts; 0 with --url: a running node is written to only when "
                    + "asked). With 0, reads draw from the " + BenchConfig.DEFAULT_KEYS
                    + " keys an earlier bench prefilled.")
    Long prefill;

    @Option(
            names = {"-c", "--connections"},
            defaultValue = "64",
            description = "Connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(
            names = "--ack",
            defaultValue = "0",
            description = "Replicas that must answer (&ack=); 0 leaves it out (default).")
    int ack;

    @Option(names = "--from", defaultValue = "0", description = "Replicas asked (&from=); 0 leaves it out (default).")
    int from;

    @Option(
            names = "--cluster",
            defaultValue = "1",
            description = "Fresh local nodes to start: 1 (default) or 3 (a cluster).")
    int cluster;

    @Option(names = "--url", description = "Load this running node instead of starting one (no profiling).")
    URI url;

    @Option(
            names = "--slo-ms",
            defaultValue = "10",
            description = "p99 SLO of the saturation search in ms (default: ${DEFAULT-VALUE}).")
    double sloMs;

    @Option(
            names = "--stable-fraction",
            defaultValue = "0.8",
            description = "Stable rate as a fraction of saturation (default: ${DEFAULT-VALUE}).")
    double stableFraction;

    @Option(
            names = {"-d", "--duration"},
            defaultValue = "60",
            description = "Stable run in seconds (default: ${DEFAULT-VALUE}).")
    int duration;

    @Option(
            names = "--step-duration",
            defaultValue = "5",
            description = "Ladder step in seconds (default: ${DEFAULT-VALUE}).")
    int stepDuration;

    @Option(
            names = "--start-rate",
            defaultValue = "5000",
            description = "First ladder rate in req/s (default: ${DEFAULT-VALUE}).")
    long startRate;

    @Option(
            names = "--warmup",
            defaultValue = "10",
            description =
                    "Seconds of load at the start rate before the ladder, not judged, in two generator runs (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--max-steps", defaultValue = "12", description = "Most ladder steps (default: ${DEFAULT-VALUE}).")
    int maxSteps;

    @Option(
            names = "--out",
            defaultValue = "bench-reports",
            description = "Where report directories go (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(
            names = "--baseline",
            paramLabel = "DIR",
            description = "An earlier report directory: adds ratio columns against it.")
    Path baseline;

    @Option(
            names = "--ycsb",
            paramLabel = "A-F",
            description = "Run this YCSB core workload instead of the load generator's ladder and stable run.")
    String ycsb;

    @Option(
            names = "--ycsb-records",
            defaultValue = "100000",
            description = "YCSB record count (default: ${DEFAULT-VALUE}).")
    long ycsbRecords;

    @Option(
            names = "--ycsb-ops",
            defaultValue = "500000",
            description = "YCSB operation count (default: ${DEFAULT-VALUE}).")
    long ycsbOps;

    @Option(
            names = "--ycsb-threads",
            defaultValue = "16",
            description = "YCSB client threads (default: ${DEFAULT-VALUE}).")
    int ycsbThreads;

    @Option(
            names = "--no-profile",
            description = "Skip the profiled run after the stable run (no flame graphs; the bench takes one stable-run "
                    + "length less). The stable run never has the profiler attached either way; there is no "
                    + "profiled run with --url or --ycsb.")
    boolean noProfile;

    @Option(
            names = "--serve-arg",
            paramLabel = "FLAG",
            description =
                    "A flag for the nodes bench starts, repeatable; write it with '=', e.g. --serve-arg=--no-metrics "
                            + "(bench/metrics-overhead.sh compares --metrics with --no-metrics this way).")
    List<String> serveArgs = new ArrayList<>();

    @Option(
            names = "--server-cpu",
            defaultValue = "0",
            description = "CPU the local nodes are pinned to, -1 for none (default: ${DEFAULT-VALUE}).")
    int serverCpu;

    @Option(
            names = "--load-cpu",
            defaultValue = "1",
            description = "CPU the load generator is pinned to, -1 for none (default: ${DEFAULT-VALUE}).")
    int loadCpu;

    @Option(
            names = "--load-generator",
            defaultValue = "rategen",
            paramLabel = "rategen|oha",
            description =
                    "Constant-rate load generator: rategen (bench/rategen/rategen.c, compiled with cc on first use) "
                            + "or oha (installed with cargo on first use) (default: ${DEFAULT-VALUE}).")
    String loadGenerator;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        BenchConfig config = validate();
        try {
            Path dir = new BenchRun(config, System.err).run();
            System.err.println("bench: report written");
            System.out.println(dir.resolve("report.md"));
            return 0;
        } catch (java.io.IOException e) {
            System.err.println("bench: " + e.getMessage());
            return 1;
        }
    }

    BenchConfig validate() {
        try {
            return new BenchConfig(
                    parse(Workload.class, workload, "--workload"),
                    parse(KeyChoice.class, keys, "--keys"),
                    readRatio,
                    valueSize,
                    prefill != null ? prefill : url != null ? 0 : BenchConfig.DEFAULT_KEYS,
                    connections,
                    ack,
                    from,
                    cluster,
                    url,
                    sloMs,
                    stableFraction,
                    duration,
                    stepDuration,
                    startRate,
                    warmup,
                    maxSteps,
                    out,
                    baseline,
                    ycsb == null ? null : ycsb.toUpperCase(Locale.ROOT),
                    ycsbRecords,
                    ycsbOps,
                    ycsbThreads,
                    !noProfile,
                    serverCpu,
                    loadCpu,
                    argsAfterBench(spec.commandLine().getParseResult().originalArgs()),
                    serveArgs,
                    parse(LoadGenerator.Kind.class, loadGenerator, "--load-generator"));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The arguments of this subcommand: the original ones after {@code bench}. */
    static List<String> argsAfterBench(List<String> original) {
        int i = original.indexOf("bench");
        return i < 0 ? original : original.subList(i + 1, original.size());
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String value, String flag) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": unknown value '" + value + "'; one of "
                    + List.of(type.getEnumConstants()).stream()
                            .map(c -> c.name().toLowerCase(Locale.ROOT))
                            .toList());
        }
    }
}
