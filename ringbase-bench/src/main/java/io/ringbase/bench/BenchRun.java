package io.ringbase.bench;

import io.ringbase.bench.ycsb.YcsbRunner;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One {@code ringbase bench} run in order: install the tools, start the target, prefill, search the saturation
 * rate, run at a stable fraction of it without a profiler while measuring each local node's GC pauses, allocation
 * and RSS ({@link CausesMeter}), then (unless {@code --no-profile}) as long again at that rate under async-profiler
 * for the flame graphs ({@link StableRun}), or run a YCSB workload instead; then write
 * the report directory {@code <out>/<date>-<run>/}: report.md, stable.hgrm, two PNG plots, flame graphs,
 * the nodes' GC logs, summary.tsv. Prints the causes on one line at the end.
 */
public final class BenchRun {

    /** Precision at which the saturation search stops bisecting (failing - passing rate, relative). */
    static final double LADDER_PRECISION = 0.10;

    /** Seconds of load at the stable rate, not judged, between the ladder and the stable run. */
    static final int STABLE_LEAD_IN_S = 5;

    private final BenchConfig config;
    private final PrintStream log;

    public BenchRun(BenchConfig config, PrintStream log) {
        this.config = config;
        this.log = log;
    }

    /**
     * Runs the benchmark and returns the report directory.
     *
     * @throws IOException when a tool cannot be installed, a node does not start, the load generator fails, or
     *                     the report cannot be written; the message says which
     */
    public Path run() throws IOException, InterruptedException {
        Path cache = NodeLauncher.home().resolve("bench/.cache");
        Files.createDirectories(cache);
        Map<String, Double> baseline = config.baseline() == null ? null : ReportWriter.readSummary(config.baseline());
        String stamp =
                LocalDateTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmmss"));
        Path dir = config.outDir().resolve(stamp + "-" + config.runName());
        Files.createDirectories(dir);
        try {
            return runInto(dir, cache, baseline);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (!Files.exists(dir.resolve("report.md"))) {
                deleteTree(dir); // no half-written report directories
            }
            throw e;
        }
    }

    private Path runInto(Path dir, Path cache, Map<String, Double> baseline) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("ringbase-bench-");
        List<String> notes = new ArrayList<>();
        List<String> tools = new ArrayList<>();
        LoadGenerator load = null;
        Profiler profiler = null;
        if (config.ycsb() == null) {
            load = switch (config.loadGenerator()) {
                case RATEGEN -> new RategenDriver(RategenInstaller.ensure(cache), config.loadCpu(), work);
                case OHA -> new OhaDriver(OhaInstaller.ensure(cache), config.loadCpu(), work);
            };
            tools.add(load.describe());
            if (config.profile() && config.url() == null) {
                profiler = Profiler.ensure(cache);
                tools.add("async-profiler " + profiler.version());
            }
        } else {
            tools.add("YCSB core " + YcsbRunner.YCSB_VERSION + " (site.ycsb:core), workload " + config.ycsb());
        }
        int idle = Environment.idlePercent();
        List<String[]> env = Environment.describe(config, tools, idle);
        if (idle < 90) {
            notes.add("Only " + idle
                    + "% of CPU time was idle before the run: other processes were busy; figures are skewed.");
        }
        // On Ctrl-C or SIGTERM: SIGTERM to the nodes and load generators this run started.
        Thread onSignal = new Thread(() -> ProcessHandle.current().children().forEach(ProcessHandle::destroy));
        Runtime.getRuntime().addShutdownHook(onSignal);
        NodeLauncher.Target target = config.url() != null
                ? NodeLauncher.Target.remote(config.url())
                : NodeLauncher.start(config.clusterSize(), config.serverCpu(), work, dir, config.serveArgs());
        Report report;
        try {
            if (config.prefill() > 0 && (config.workload().readsPrefilledKeys() && config.ycsb() == null)) {
                log.printf(
                        "bench: prefilling %,d keys of %d bytes over %d connections%n",
                        config.prefill(), config.valueSize(), config.connections());
                double rate = Prefill.run(
                        target.urls(),
                        config.prefill(),
                        config.valueSize(),
                        config.connections(),
                        config.replicaQuery(),
                        log);
                notes.add(String.format(
                        "Prefill: %,d keys written in order (all 201) at %,.0f keys/s.", config.prefill(), rate));
            }
            if (config.ycsb() != null) {
                String out = YcsbRunner.run(
                        config.ycsb(),
                        target.urls(),
                        config.ycsbRecords(),
                        config.ycsbOps(),
                        config.ycsbThreads(),
                        config.ack(),
                        config.from(),
                        work,
                        log);
                report = new Report(
                        "ringbase bench: YCSB workload " + config.ycsb(),
                        env,
                        List.of(),
                        0,
                        0,
                        null,
                        null,
                        List.of(),
                        List.of(),
                        "Not measured for YCSB runs, which have no stable run"
                                + (target.local() ? " (the nodes' GC logs are in the report directory)." : "."),
                        out,
                        baseline,
                        nameOf(config.baseline()),
                        notes);
            } else {
                report = loadTest(load, profiler, target, dir, work, env, baseline, notes);
            }
        } finally {
            if (target.local()) {
                List<Integer> codes = target.stop();
                notes.add("Nodes stopped with SIGTERM; exit codes " + codes + "; " + logSummary(target.logs()) + " "
                        + logLinks(target.logs()) + ".");
            }
            deleteTree(work);
            Runtime.getRuntime().removeShutdownHook(onSignal);
        }
        ReportWriter.write(withNotes(report, notes), dir);
        log.println("bench: causes: " + ReportWriter.causesLine(report));
        return dir;
    }

    /**
     * More warm-up runs at the start rate, {@link SteadyState#RUN_S} s each, until every node has finished
     * a compaction (at most {@link SteadyState#MAX_RUNS}): the ladder then starts from steady state.
     */
    private void settleWrites(LoadGenerator load, LoadPlan plan, NodeLauncher.Target target, List<String> notes)
            throws IOException, InterruptedException {
        SteadyState steady = new SteadyState(target.urls());
        int runs = 0;
        while (runs < SteadyState.MAX_RUNS && !steady.reached()) {
            load.run(plan.specs(config.startRate()), SteadyState.RUN_S);
            runs++;
        }
        boolean reached = runs < SteadyState.MAX_RUNS || steady.reached();
        String what = reached
                ? String.format(
                        "every node had finished a compaction after %d more warm-up runs of %d s",
                        runs, SteadyState.RUN_S)
                : String.format(
                        "a node had still not compacted after %d more warm-up runs of %d s; measured anyway",
                        runs, SteadyState.RUN_S);
        log.println("bench: " + what);
        notes.add("Steady state before the ladder: " + what + " (a node's first flush and compaction make the JIT "
                + "recompile the storage code for seconds).");
    }

    private Report loadTest(
            LoadGenerator load,
            Profiler profiler,
            NodeLauncher.Target target,
            Path dir,
            Path work,
            List<String[]> env,
            Map<String, Double> baseline,
            List<String> notes)
            throws IOException, InterruptedException {
        LoadPlan plan = LoadPlan.prepare(config, target.urls(), work);
        CausesMeter causes = null; // before the warm-up: JFR's start-up is not in the stable run
        if (target.local()) {
            causes = new CausesMeter(
                    work, target.processes().stream().map(Process::pid).toList(), target.gcLogs(), dir);
            causes.prepare(notes);
        }
        if (config.warmupS() > 0) {
            // Two runs, so that the load's first connections close before the ladder: the first close
            // deoptimizes the event loop's hottest compiled methods (never seen a read hit end of stream),
            // and their recompilation under load would land in the first step.
            int first = (config.warmupS() + 1) / 2;
            int second = config.warmupS() - first;
            LoadResult w = load.run(plan.specs(config.startRate()), first);
            if (second > 0) {
                w = load.run(plan.specs(config.startRate()), second);
            }
            String runs = second > 0 ? first + " s + " + second + " s" : first + " s";
            log.printf(
                    "bench: warm-up %,d req/s for %s (not judged): achieved %,.0f, p99 %.2f ms in its last run%n",
                    config.startRate(), runs, w.achievedRate(), w.percentileMs(99));
            notes.add(String.format(
                    "Warm-up before the ladder (JIT): %s at %,d req/s in %s, so that connections have "
                            + "closed once before the ladder; its last run achieved %,.0f req/s, p99 %.2f ms; not judged.",
                    runs,
                    config.startRate(),
                    second > 0 ? "two generator runs" : "one generator run",
                    w.achievedRate(),
                    w.percentileMs(99)));
            if (config.workload().writes() && target.local()) {
                settleWrites(load, plan, target, notes);
            }
        }
        SaturationLadder ladder =
                new SaturationLadder(config.startRate(), config.sloMs(), LADDER_PRECISION, config.maxSteps());
        var next = ladder.nextRate();
        while (next.isPresent()) {
            long rate = next.getAsLong();
            LoadResult r = load.run(plan.specs(rate), config.stepS());
            SaturationLadder.Step step = ladder.record(new SaturationLadder.Measurement(
                    rate, r.achievedRate(), r.percentileMs(99), r.errorShare(plan.expectedStatuses())));
            log.printf(
                    "bench: ladder %,d req/s: achieved %,.0f, p99 %.2f ms, statuses %s -> %s%n",
                    rate,
                    r.achievedRate(),
                    r.percentileMs(99),
                    r.statuses(),
                    step.passed() ? "pass" : "fail (" + step.reason() + ")");
            next = ladder.nextRate();
        }
        long saturation = ladder.highestPassing();
        if (saturation == 0) {
            notes.add("No ladder step passed; the stable run uses the start rate instead of a saturation rate.");
        }
        double stableRate =
                Math.max(1, Math.round((saturation > 0 ? saturation : config.startRate()) * config.stableFraction()));
        log.printf(
                "bench: saturation %,d req/s; stable run at %,.0f req/s for %d s without a profiler%s%n",
                saturation,
                stableRate,
                config.durationS(),
                profiler != null ? ", then a profiled run as long at the same rate for the flame graphs" : "");
        if (config.warmupS() > 0) {
            // the ladder ends with its failing, overloaded steps; what they leave behind (queued requests,
            // recompiled code) would otherwise be in the stable run's first seconds
            LoadResult lead = load.run(plan.specs((long) stableRate), STABLE_LEAD_IN_S);
            log.printf(
                    "bench: lead-in %,.0f req/s for %d s (not judged): p99 %.2f ms%n",
                    stableRate, STABLE_LEAD_IN_S, lead.percentileMs(99));
            notes.add(String.format(
                    Locale.ROOT,
                    "Lead-in before the stable run: %d s at its rate, not judged (p99 %.2f ms), "
                            + "so that it does not begin with what the ladder's overloaded steps left behind.",
                    STABLE_LEAD_IN_S,
                    lead.percentileMs(99)));
        }
        CausesMeter meter = causes;
        AtomicReference<List<Report.NodeCauses>> measured = new AtomicReference<>(List.of());
        StableRun.Window window = new StableRun.Window() {
            @Override
            public void open(int durationS) {
                if (meter != null) {
                    meter.openWindow(durationS);
                }
            }

            @Override
            public void close(LoadResult run) throws InterruptedException {
                if (meter != null) { // stops JFR: nothing of it runs in the profiled run
                    measured.set(meter.results(run.achievedRate(), notes));
                }
            }
        };
        StableRun.Profiling profiling = profiler == null
                ? null
                : (durationS, attached) -> profileDuringRun(
                        profiler, target, Files.createDirectories(dir.resolve("profiles")), durationS, attached);
        StableRun.Outcome outcome = new StableRun(config, load, log)
                .run(plan.specs((long) stableRate), stableRate, saturation, window, profiling, notes);
        LoadResult stable = outcome.stable();
        if (outcome.profiled() != null) {
            LoadResult with = outcome.profiled().withProfiler();
            log.printf(
                    Locale.ROOT,
                    "bench: profiled run (not judged): achieved %,.0f req/s, p99 %.2f ms with profiler%n",
                    with.achievedRate(),
                    with.percentileMs(99));
        }
        List<Report.NodeCauses> nodeCauses = measured.get();
        try (PrintStream hgrm = new PrintStream(Files.newOutputStream(dir.resolve("stable.hgrm")))) {
            stable.latencyUs().outputPercentileDistribution(hgrm, 1000.0);
        }
        String what = config.runName() + " at " + String.format("%,.0f", stableRate) + " req/s";
        Plots.latencyByPercentile(
                stable.latencyUs(), "Latency by percentile: " + what, dir.resolve("latency-by-percentile.png"));
        Plots.throughputAndP99(
                stable.perSecondUs(),
                stableRate,
                "Throughput and p99 per second: " + what,
                dir.resolve("throughput-p99.png"));
        return new Report(
                "ringbase bench: " + config.runName(),
                env,
                ladder.steps(),
                saturation,
                stableRate,
                stable,
                outcome.profiled(),
                outcome.profiles(),
                nodeCauses,
                causes == null
                        ? "Not available: the node was given by --url, "
                                + "not started by bench, so its GC log, JVM and process are not at hand."
                        : null,
                null,
                baseline,
                nameOf(config.baseline()),
                notes);
    }

    /**
     * cpu, alloc, lock: each for a third of the profiled run, on every local node; calls {@code attached} once the
     * cpu profile runs on every node.
     */
    private List<Report.ProfileOutput> profileDuringRun(
            Profiler profiler, NodeLauncher.Target target, Path profileDir, int durationS, Runnable attached)
            throws IOException, InterruptedException {
        long thirdMs = durationS * 1000L / 3;
        List<Report.ProfileOutput> done = new ArrayList<>();
        for (String kind : List.of("cpu", "alloc", "lock")) {
            long started = System.currentTimeMillis();
            for (Process p : target.processes()) {
                profiler.start(p.pid(), kind);
            }
            attached.run(); // the first time starts the load; later calls do nothing
            Thread.sleep(Math.max(500, thirdMs - 700 - (System.currentTimeMillis() - started)));
            for (int i = 0; i < target.processes().size(); i++) {
                String name = "node" + (i + 1) + "-" + kind;
                Path base = profileDir.resolve(name);
                profiler.stop(
                        target.processes().get(i).pid(),
                        base,
                        "Ringbase " + config.runName() + " node " + (i + 1) + " " + kind + " (profiled run)");
                String event = kind.equals("cpu") ? profiler.cpuEvent() : kind;
                done.add(new Report.ProfileOutput(
                        i + 1,
                        kind,
                        event,
                        "profiles/" + name + ".html",
                        Profiler.topFrames(Files.readAllLines(Path.of(base + ".txt")), 10)));
            }
        }
        return done;
    }

    private static Report withNotes(Report r, List<String> notes) {
        return new Report(
                r.title(),
                r.environment(),
                r.ladder(),
                r.saturation(),
                r.stableTarget(),
                r.stable(),
                r.profiledRun(),
                r.profiles(),
                r.causes(),
                r.causesAbsent(),
                r.ycsbOutput(),
                r.baseline(),
                r.baselineName(),
                List.copyOf(notes));
    }

    private static String nameOf(Path p) {
        return p == null ? null : p.toString();
    }

    /** Markdown links to the node logs, which are in the report directory: {@code ([node1.log](node1.log), ...)}. */
    static String logLinks(List<Path> logs) {
        return logs.stream()
                .map(l -> l.getFileName().toString())
                .map(n -> "[" + n + "](" + n + ")")
                .collect(Collectors.joining(", ", "(", ")"));
    }

    private static String logSummary(List<Path> logs) {
        long warn = 0;
        for (Path log : logs) {
            try (Stream<String> lines = Files.lines(log)) {
                warn += lines.filter(l -> l.contains("WARN") || l.contains("ERROR") || l.contains("Exception"))
                        .count();
            } catch (IOException e) {
                // a missing log counts as no warnings
            }
        }
        return warn + " WARN/ERROR/Exception lines in the node logs";
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Which load generator processes make up one rate: one per node (and per method for mixed), with their URL sources. */
    record LoadPlan(List<List<LoadSpec>> perNode, BenchConfig config) {

        static LoadPlan prepare(BenchConfig config, List<URI> urls, Path work) throws IOException {
            List<List<LoadSpec>> perNode = new ArrayList<>();
            Path body = work.resolve("value.bin");
            byte[] value = new byte[config.valueSize()];
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) ('a' + i % 26);
            }
            Files.write(body, value);
            int n = 0;
            for (URI url : urls) {
                n++;
                String base = url.toString().replaceAll("/$", "");
                List<LoadSpec> specs = new ArrayList<>();
                Workload w = config.workload();
                if (w.writes()) {
                    LoadSpec put;
                    if (config.keys() == KeyChoice.UNIFORM) {
                        put = new LoadSpec(
                                "PUT",
                                KeySpace.putUrl(base, config.replicaQuery()),
                                LoadSpec.UrlSource.NEW_KEYS,
                                body,
                                1.0 - (w == Workload.MIXED ? config.readRatio() : 0),
                                0);
                    } else {
                        Path file = work.resolve("put-urls-" + n + ".txt");
                        KeySpace.writeUrlFile(
                                file,
                                base,
                                Math.max(config.prefill(), BenchConfig.DEFAULT_KEYS),
                                config.keys(),
                                false,
                                config.replicaQuery(),
                                n);
                        put = new LoadSpec(
                                "PUT",
                                file.toString(),
                                LoadSpec.UrlSource.FILE,
                                body,
                                1.0 - (w == Workload.MIXED ? config.readRatio() : 0),
                                0);
                    }
                    specs.add(put);
                }
                if (w != Workload.PUT) {
                    Path file = work.resolve("get-urls-" + n + ".txt");
                    KeySpace.writeUrlFile(
                            file,
                            base,
                            config.readKeys(),
                            config.keys(),
                            w == Workload.RANGE,
                            config.replicaQuery(),
                            100 + n);
                    specs.add(new LoadSpec(
                            "GET",
                            file.toString(),
                            LoadSpec.UrlSource.FILE,
                            null,
                            w == Workload.MIXED ? config.readRatio() : 1.0,
                            0));
                }
                perNode.add(specs);
            }
            return new LoadPlan(perNode, config);
        }

        /** The specs for a total rate: the rate and the connections split over nodes and methods by share. */
        List<LoadSpec> specs(long rate) {
            List<LoadSpec> out = new ArrayList<>();
            for (List<LoadSpec> node : perNode) {
                for (LoadSpec s : node) {
                    double share = s.rate() / perNode.size();
                    if (share <= 0) {
                        continue;
                    }
                    out.add(s.at(rate * share, Math.max(1, (int) Math.round(config.connections() * share))));
                }
            }
            return out;
        }

        Set<Integer> expectedStatuses() {
            return switch (config.workload()) {
                case PUT -> Set.of(201);
                case GET, RANGE -> Set.of(200);
                case MIXED -> Set.of(200, 201);
            };
        }
    }
}
