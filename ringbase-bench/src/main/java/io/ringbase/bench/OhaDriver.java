package io.ringbase.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs oha at a constant rate ({@code -q RATE --latency-correction}, so every latency is measured from the
 * intended send time) and reads its per-request CSV into a {@link LoadResult}. Several specs (one per node,
 * or GETs beside PUTs) run as parallel oha processes whose results are merged. oha is pinned to one CPU
 * with {@code taskset} when that is available.
 */
public final class OhaDriver implements LoadGenerator {

    private final Path oha;
    private final int cpu;
    private final Path workDir;
    private int runs;

    /**
     * @param oha     the oha binary
     * @param cpu     CPU to pin oha to, or -1 for no pinning
     * @param workDir where the CSV and stderr files of the runs go (deleted after reading)
     */
    public OhaDriver(Path oha, int cpu, Path workDir) {
        this.oha = oha;
        this.cpu = cpu;
        this.workDir = workDir;
    }

    /** The command line of one spec, without pinning. */
    public List<String> command(LoadSpec spec, int durationS, Path csv) {
        // -n rather than -z: oha then sends exactly that many at the constant rate (with -z it left a few
        // unsent at the deadline), so what its CSV lacks got no answer (an error or a timeout)
        List<String> cmd = new ArrayList<>(List.of(oha.toString(), "--no-tui", "-n", Long.toString(intended(spec, durationS)),
                "-q", String.format(Locale.ROOT, "%.1f", spec.rate()), "--latency-correction",
                "-c", Integer.toString(spec.connections()), "-m", spec.method(), "-t", "10s",
                "--output-format", "csv", "-o", csv.toString()));
        if (spec.body() != null) {
            cmd.addAll(List.of("-D", spec.body().toString(), "-T", "application/octet-stream"));
        }
        if (spec.source() == LoadSpec.UrlSource.NEW_KEYS) {
            cmd.add("--rand-regex-url");
            cmd.add(regexOf(spec.url()));
        } else {
            cmd.add("--urls-from-file");
            cmd.add(spec.url());
        }
        return cmd;
    }

    /**
     * oha's {@code --rand-regex-url} for a {@link LoadSpec.UrlSource#NEW_KEYS} URL: the {@code ?} escaped,
     * {@link LoadSpec#KEY} as {@code [0-9]{12}}.
     */
    static String regexOf(String template) {
        return template.replace("?", "\\?").replace(LoadSpec.KEY, "[0-9]{12}");
    }

    /** {@inheritDoc} The exception message holds oha's stderr when oha fails. */
    @Override
    public LoadResult run(List<LoadSpec> specs, int durationS, java.util.function.IntConsumer tick)
            throws IOException, InterruptedException {
        List<Process> procs = new ArrayList<>();
        List<Path> csvs = new ArrayList<>();
        List<Path> errs = new ArrayList<>();
        try {
            for (LoadSpec spec : specs) {
                int n = ++runs;
                Path csv = workDir.resolve("oha-" + n + ".csv");
                Path err = workDir.resolve("oha-" + n + ".err");
                List<String> cmd = new ArrayList<>();
                boolean pinned = cpu >= 0 && NodeLauncher.hasTaskset();
                if (pinned) {
                    cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
                }
                cmd.addAll(command(spec, durationS, csv));
                if (pinned) {
                    // one core, one tokio thread: two on one CPU raised oha's own p99 5-18x (bench/RESULTS.md)
                    cmd.addAll(cmd.size() - 2, List.of("--worker-threads", "1"));
                }
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(err.toFile()).start());
                csvs.add(csv);
                errs.add(err);
            }
            LoadResult total = LoadResult.empty(durationS);
            for (int i = 0; i < procs.size(); i++) {
                Process p = procs.get(i);
                int elapsed = 0;
                while (i == 0 && elapsed < durationS && !p.waitFor(1, TimeUnit.SECONDS)) {
                    tick.accept(++elapsed);
                }
                if (!p.waitFor(durationS + 300L - elapsed, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("oha did not finish within " + (durationS + 300) + " s");
                }
                if (p.exitValue() != 0) {
                    throw new IOException("oha exited with " + p.exitValue() + ": " + Files.readString(errs.get(i)).strip());
                }
                LoadResult one = LoadResult.empty(durationS);
                long answered;
                try (BufferedReader in = Files.newBufferedReader(csvs.get(i))) {
                    answered = OhaCsv.parse(in, one);
                }
                // oha sent exactly intended(...) requests and waited for each (at most -t); its CSV lists the answered
                one.recordNoAnswer(intended(specs.get(i), durationS) - answered);
                total.addOperation(specs.get(i).method(), one);
            }
            return total;
        } finally {
            for (Process p : procs) {
                p.destroyForcibly();
            }
            for (Path p : csvs) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Requests oha sends for {@code spec} in {@code durationS} seconds at its constant rate. */
    static long intended(LoadSpec spec, int durationS) {
        return Math.max(1, Math.round(spec.rate() * durationS));
    }

    @Override
    public String describe() {
        return version() + " (-q RATE --latency-correction)";
    }

    /** oha's version line, e.g. {@code oha 1.16.0}. */
    public String version() {
        try {
            Process p = new ProcessBuilder(oha.toString(), "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes()).strip();
            p.waitFor();
            return v;
        } catch (IOException | InterruptedException e) {
            return "oha (version unknown: " + e.getMessage() + ")";
        }
    }
}
