package io.ringbase.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs oha at a constant rate ({@code -q RATE --latency-correction}, so every latency is measured from the
 * intended send time) and reads its per-request CSV into a {@link LoadResult}. Several specs (one per node,
 * or GETs beside PUTs) run as parallel oha processes whose results are merged. oha is pinned to one CPU
 * with {@code taskset} when that is available.
 */
public final class OhaDriver extends GeneratorProcesses {

    /** Seconds oha waits for each answer ({@code -t}). */
    private static final int TIMEOUT_S = 10;

    /**
     * @param oha     the oha binary
     * @param cpu     CPU to pin oha to, or -1 for no pinning
     * @param workDir where the CSV and console files of the runs go (deleted after reading)
     */
    public OhaDriver(Path oha, int cpu, Path workDir) {
        super("oha", oha, cpu, workDir);
    }

    /** The command line of one spec, without pinning. */
    public List<String> command(LoadSpec spec, int durationS, Path csv) {
        return command(spec, durationS, csv, false);
    }

    @Override
    List<String> command(LoadSpec spec, int durationS, Path csv, boolean pinned) {
        // -n rather than -z: oha then sends exactly that many at the constant rate (with -z it left a few
        // unsent at the deadline), so what its CSV lacks got no answer (an error or a timeout)
        List<String> cmd = new ArrayList<>(List.of(
                binary().toString(),
                "--no-tui",
                "-n",
                Long.toString(intended(spec, durationS)),
                "-q",
                String.format(Locale.ROOT, "%.1f", spec.rate()),
                "--latency-correction",
                "-c",
                Integer.toString(spec.connections()),
                "-m",
                spec.method(),
                "-t",
                TIMEOUT_S + "s",
                "--output-format",
                "csv",
                "-o",
                csv.toString()));
        if (pinned) {
            // one core, one tokio thread: two on one CPU raised oha's own p99 5-18x
            cmd.addAll(List.of("--worker-threads", "1"));
        }
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

    @Override
    LoadResult read(LoadSpec spec, int durationS, Path csv, String console) throws IOException {
        LoadResult one = LoadResult.empty(durationS);
        long answered;
        try (BufferedReader in = Files.newBufferedReader(csv)) {
            answered = OhaCsv.parse(in, one);
        }
        // oha sent exactly intended(...) requests and waited for each (at most -t); its CSV lists the answered
        one.recordNoAnswer(intended(spec, durationS) - answered);
        return one;
    }

    @Override
    int graceS() {
        return 300;
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
        return version("--version");
    }
}
