package io.ringbase.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link Report} as {@code report.md} (pure: no I/O but {@link #write}), and its headline figures as
 * {@code summary.tsv}, the file a later run's {@code --baseline} reads ({@link #readSummary}).
 */
public final class ReportWriter {

    /** The name of the summary file in a report directory. */
    public static final String SUMMARY = "summary.tsv";

    private ReportWriter() {
    }

    /** The headline figures: rates in requests per second, latencies in ms; keys are stable across versions. */
    public static Map<String, Double> summary(Report r) {
        Map<String, Double> m = new LinkedHashMap<>();
        if (!r.ladder().isEmpty()) {
            m.put("saturation_rps", (double) r.saturation());
        }
        if (r.stable() != null) {
            m.put("stable_target_rps", r.stableTarget());
            m.put("stable_achieved_rps", r.stable().achievedRate());
            for (double p : Report.PERCENTILES) {
                m.put("p" + pct(p) + "_ms", r.stable().percentileMs(p));
            }
            m.put("max_ms", r.stable().latencyUs().getMaxValue() / 1000.0);
        }
        return m;
    }

    /** Renders the whole report as Markdown. */
    public static String render(Report r) {
        StringBuilder sb = new StringBuilder();
        sb.append("# ").append(r.title()).append("\n\n");
        sb.append("## Environment\n\n| | |\n|---|---|\n");
        for (String[] row : r.environment()) {
            sb.append("| ").append(row[0]).append(" | ").append(row[1].replace("|", "\\|")).append(" |\n");
        }
        if (!r.ladder().isEmpty()) {
            sb.append("\n## Saturation search\n\nConstant-rate steps, doubling then bisecting; a step fails when it achieves under ")
                    .append(pct(100 * SaturationLadder.ACHIEVED_SHARE)).append("% of its target, its p99 passes the SLO, or over ")
                    .append(pct(100 * SaturationLadder.MAX_ERROR_SHARE)).append("% of answers are errors; a failing step is run once more before its rate counts as failing.\n\n")
                    .append("| step | target req/s | achieved req/s | p99 ms | errors | verdict |\n|---:|---:|---:|---:|---:|---|\n");
            int i = 1;
            for (SaturationLadder.Step s : r.ladder()) {
                var m = s.measurement();
                sb.append(String.format(Locale.ROOT, "| %d | %,d | %,.0f | %.2f | %.2f%% | %s |%n", i++, m.targetRate(),
                        m.achievedRate(), m.p99Ms(), 100 * m.errorShare(), s.passed() ? "pass" : "fail: " + s.reason()));
            }
            sb.append(String.format(Locale.ROOT, "%n**Saturation rate: %,d req/s** (the highest passing step).%n", r.saturation()));
        }
        if (r.stable() != null) {
            renderStable(r, sb);
        }
        if (!r.profiles().isEmpty()) {
            sb.append("\n## Profiles (async-profiler, during the stable run)\n\n");
            sb.append("Each event was profiled for a third of the stable run, one after the other (cpu, alloc, lock).\n");
            for (Report.ProfileOutput p : r.profiles()) {
                sb.append(String.format("%n### node %d: %s (event=%s)%n%nFlame graph: [%s](%s)%n%n", p.node(), p.kind(), p.event(),
                        p.html(), p.html()));
                if (p.topFrames().size() <= 2) {
                    sb.append(p.kind().equals("lock") ? "(no contended locks sampled)\n" : "(no samples)\n");
                } else {
                    sb.append("```\n").append(String.join("\n", p.topFrames())).append("\n```\n");
                }
            }
        }
        if (r.ycsbOutput() != null) {
            sb.append("\n## YCSB output\n\n```\n").append(r.ycsbOutput().strip()).append("\n```\n");
        }
        if (!r.notes().isEmpty()) {
            sb.append("\n## Notes\n\n");
            for (String n : r.notes()) {
                sb.append("- ").append(n).append('\n');
            }
        }
        return sb.toString();
    }

    private static void renderStable(Report r, StringBuilder sb) {
        LoadResult s = r.stable();
        Map<String, Double> base = r.baseline();
        Map<String, Double> now = summary(r);
        sb.append(String.format(Locale.ROOT, "%n## Stable run%n%nConstant rate %,.0f req/s for %d s; latency measured from the "
                + "intended send time (corrected for coordinated omission). Answered %,d requests (%,.0f req/s); statuses: %s.%n%n",
                r.stableTarget(), s.durationS(), s.answered(), s.achievedRate(), s.statuses()));
        sb.append(base != null ? "| | ms | baseline ms | ratio |\n|---|---:|---:|---:|\n" : "| percentile | ms |\n|---|---:|\n");
        for (double p : Report.PERCENTILES) {
            row(sb, "p" + pct(p), "p" + pct(p) + "_ms", now, base, "%.3f");
        }
        row(sb, "max", "max_ms", now, base, "%.3f");
        if (base != null) {
            sb.append("\n| | req/s | baseline req/s | ratio |\n|---|---:|---:|---:|\n");
            row(sb, "saturation", "saturation_rps", now, base, "%,.0f");
            row(sb, "stable achieved", "stable_achieved_rps", now, base, "%,.0f");
            sb.append("\nBaseline: `").append(r.baselineName()).append("`; ratio = this run / baseline.\n");
        }
        sb.append("\nFull distribution: [stable.hgrm](stable.hgrm) (HdrHistogram percentile output, ms).\n\n")
                .append("![latency by percentile](latency-by-percentile.png)\n\n![throughput and p99 over time](throughput-p99.png)\n");
    }

    private static void row(StringBuilder sb, String label, String key, Map<String, Double> now, Map<String, Double> base,
            String fmt) {
        Double v = now.get(key);
        sb.append("| ").append(label).append(" | ").append(v == null ? "-" : String.format(Locale.ROOT, fmt, v));
        if (base != null) {
            Double b = base.get(key);
            sb.append(" | ").append(b == null ? "-" : String.format(Locale.ROOT, fmt, b)).append(" | ")
                    .append(b == null || v == null || b == 0 ? "-" : String.format(Locale.ROOT, "%.2f", v / b));
        }
        sb.append(" |\n");
    }

    /** A percentile as written in keys and tables: 50, 99.9, 99.99. */
    static String pct(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }

    /** Writes {@code report.md} and {@code summary.tsv} into {@code dir}. */
    public static void write(Report r, Path dir) throws IOException {
        Files.writeString(dir.resolve("report.md"), render(r));
        StringBuilder tsv = new StringBuilder();
        summary(r).forEach((k, v) -> tsv.append(k).append('\t').append(v).append('\n'));
        Files.writeString(dir.resolve(SUMMARY), tsv);
    }

    /**
     * Reads the {@code summary.tsv} of an earlier report directory.
     *
     * @throws IOException if the file is missing or a line is not {@code name<TAB>number}
     */
    public static Map<String, Double> readSummary(Path dir) throws IOException {
        Path f = dir.resolve(SUMMARY);
        if (!Files.exists(f)) {
            throw new IOException("--baseline " + dir + ": no " + SUMMARY + " there (is it a report directory of ringbase bench?)");
        }
        Map<String, Double> m = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(f);
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            String[] kv = line.split("\t");
            try {
                m.put(kv[0], Double.parseDouble(kv[1]));
            } catch (RuntimeException e) {
                throw new IOException(f + ": not 'name<TAB>number': " + line, e);
            }
        }
        return m;
    }
}
