package io.ringbase.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link Report} as {@code report.md} (pure: no I/O but {@link #write}), as {@code summary.json}
 * for programs ({@link #summaryJson}), and its headline figures as {@code summary.tsv}, the file a later run's {@code --baseline} reads ({@link #readSummary}): rates, latency
 * percentiles of the stable run (never profiled), each node's causes (GC pauses, allocation, peak RSS), and
 * the profiled run's latencies under their own keys.
 */
public final class ReportWriter {

    /** The name of the summary file in a report directory. */
    public static final String SUMMARY = "summary.tsv";

    private ReportWriter() {}

    /**
     * The headline figures: rates in requests per second, latencies in ms, {@code profiled} (0: the stable run
     * never has the profiler attached; 1 only in reports of older versions, whose stable run had it), the stable
     * run's {@code no_answer} (requests with no answer: never sent, connection errors and timeouts) and
     * {@code no_answer_unsent} (of those, never sent: the schedule ended while their connection still waited), {@code answers_4xx} and
     * {@code answers_5xx} (counts), and per node
     * {@code node<N>_gc_pauses}, {@code _gc_pause_total_ms}, {@code _gc_pause_max_ms}, {@code _deopts} and
     * {@code _deopts_dropping} (JIT deoptimizations, and those that threw compiled code away),
     * {@code _alloc_bytes_per_request}, {@code _rss_anon_peak_mb}, {@code _rss_file_peak_mb} (MB = 2^20 bytes),
     * and of the profiled run, whose latencies carry the profiler's overhead, {@code with_profiler_achieved_rps},
     * {@code with_profiler_p50_ms}, {@code _p99_ms} and {@code _max_ms};
     * keys are stable across versions, and a figure that was not measured has no key.
     */
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
            m.put("no_answer", (double) r.stable().noAnswer());
            m.put("no_answer_unsent", (double) r.stable().unsent().get());
            m.put("answers_4xx", (double) r.stable().answersWithStatus(400, 500));
            m.put("answers_5xx", (double) r.stable().answersWithStatus(500, 600));
            if (r.stable().operations().size() > 1) {
                r.stable().operations().forEach((op, result) -> {
                    String k = op.toLowerCase(Locale.ROOT) + "_";
                    m.put(k + "achieved_rps", result.achievedRate());
                    m.put(k + "p50_ms", result.percentileMs(50));
                    m.put(k + "p99_ms", result.percentileMs(99));
                    m.put(k + "max_ms", result.latencyUs().getMaxValue() / 1000.0);
                });
            }
            m.put("profiled", 0.0); // the stable run never has the profiler attached
        }
        if (r.profiledRun() != null) {
            LoadResult p = r.profiledRun().withProfiler();
            m.put("with_profiler_achieved_rps", p.achievedRate());
            m.put("with_profiler_p50_ms", p.percentileMs(50));
            m.put("with_profiler_p99_ms", p.percentileMs(99));
            m.put("with_profiler_max_ms", p.latencyUs().getMaxValue() / 1000.0);
        }
        for (Report.NodeCauses c : r.causes()) {
            String n = "node" + c.node() + "_";
            if (c.gc() != null) {
                m.put(n + "gc_pauses", (double) c.gc().count());
                m.put(n + "gc_pause_total_ms", c.gc().totalMs());
                m.put(n + "gc_pause_max_ms", c.gc().maxMs());
            }
            if (c.deopts() != null) {
                m.put(n + "deopts", (double) c.deopts().count());
                m.put(n + "deopts_dropping", (double) c.deopts().dropping());
            }
            if (c.allocBytesPerRequest() != null) {
                m.put(n + "alloc_bytes_per_request", c.allocBytesPerRequest());
            }
            if (c.peakRss() != null) {
                m.put(n + "rss_anon_peak_mb", mb(c.peakRss().anonKb()));
                m.put(n + "rss_file_peak_mb", mb(c.peakRss().fileKb()));
            }
        }
        return m;
    }

    private static double mb(long kb) {
        return kb / 1024.0;
    }

    /** Renders the whole report as Markdown. */
    public static String render(Report r) {
        StringBuilder sb = new StringBuilder();
        sb.append("# ").append(r.title()).append("\n\n");
        sb.append(
                r.profiledRun() != null
                        ? "Profiler attached during the stable run: **no**. Its latencies and the verdict are the node's "
                                + "own; the flame graphs come from a separate profiled run after it, at the same rate "
                                + "(its latencies are shown \"with profiler\" and not judged).\n\n"
                        : "Profiler attached during the stable run: **no**; no profiled run (`--no-profile`, `--url` or "
                                + "no stable run), so no flame graphs.\n\n");
        sb.append("## Environment\n\n| | |\n|---|---|\n");
        for (String[] row : r.environment()) {
            sb.append("| ")
                    .append(row[0])
                    .append(" | ")
                    .append(row[1].replace("|", "\\|"))
                    .append(" |\n");
        }
        if (!r.ladder().isEmpty()) {
            sb.append(
                            "\n## Saturation search\n\nConstant-rate steps, doubling then bisecting; a step fails when it achieves under ")
                    .append(pct(100 * SaturationLadder.ACHIEVED_SHARE))
                    .append("% of its target, its p99 passes the SLO, or over ")
                    .append(pct(100 * SaturationLadder.MAX_ERROR_SHARE))
                    .append(
                            "% of answers are errors; a failing step is run once more before its rate counts as failing.\n\n")
                    .append(
                            "| step | target req/s | achieved req/s | p99 ms | errors | verdict |\n|---:|---:|---:|---:|---:|---|\n");
            int i = 1;
            for (SaturationLadder.Step s : r.ladder()) {
                var m = s.measurement();
                sb.append(String.format(
                        Locale.ROOT,
                        "| %d | %,d | %,.0f | %.2f | %.2f%% | %s |%n",
                        i++,
                        m.targetRate(),
                        m.achievedRate(),
                        m.p99Ms(),
                        100 * m.errorShare(),
                        s.passed() ? "pass" : "fail: " + s.reason()));
            }
            sb.append(String.format(
                    Locale.ROOT, "%n**Saturation rate: %,d req/s** (the highest passing step).%n", r.saturation()));
        }
        if (r.stable() != null) {
            renderStable(r, sb);
        }
        renderCauses(r, sb);
        if (r.profiledRun() != null) {
            renderProfiledRun(r, sb);
        }
        if (r.ycsbOutput() != null) {
            sb.append("\n## YCSB output\n\n```\n")
                    .append(r.ycsbOutput().strip())
                    .append("\n```\n");
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
        sb.append(String.format(
                Locale.ROOT,
                "%n## Stable run%n%nConstant rate %,.0f req/s for %d s; latency measured from the "
                        + "intended send time (corrected for coordinated omission). Answered %,d requests (%,.0f req/s); "
                        + "statuses: %s; no answer (counted as status 0): %,d, of which %,d never sent (their connection was still "
                        + "waiting for an earlier answer when the schedule ended) and %,d connection errors or timeouts.%n%n",
                r.stableTarget(),
                s.durationS(),
                s.answered(),
                s.achievedRate(),
                s.statuses(),
                s.noAnswer(),
                s.unsent().get(),
                s.noAnswer() - s.unsent().get()));
        sb.append(
                base != null
                        ? "| | ms | baseline ms | ratio |\n|---|---:|---:|---:|\n"
                        : "| percentile | ms |\n|---|---:|\n");
        for (double p : Report.PERCENTILES) {
            row(sb, "p" + pct(p), "p" + pct(p) + "_ms", now, base, "%.3f");
        }
        row(sb, "max", "max_ms", now, base, "%.3f");
        if (base != null) {
            sb.append("\n| | req/s | baseline req/s | ratio |\n|---|---:|---:|---:|\n");
            row(sb, "saturation", "saturation_rps", now, base, "%,.0f");
            row(sb, "stable achieved", "stable_achieved_rps", now, base, "%,.0f");
            sb.append("\nBaseline: `").append(r.baselineName()).append("`; ratio = this run / baseline.\n");
            Double baseProfiled = base.get("profiled");
            if (baseProfiled != null && baseProfiled != 0) {
                sb.append("\n**Not like for like:** the profiler was attached during the baseline's stable run (a "
                        + "report of an older ringbase bench) and not during this run's, so latencies differ by its "
                        + "overhead too.\n");
            }
        }
        if (s.operations().size() > 1) {
            sb.append("\nEach operation of the mix (its own histogram; same measurement):\n\n")
                    .append(
                            "| operation | answered | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | statuses (0: no answer) |\n")
                    .append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
            s.operations()
                    .forEach((op, o) -> sb.append(String.format(
                            Locale.ROOT,
                            "| %s | %,d | %,.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %s |%n",
                            op,
                            o.answered(),
                            o.achievedRate(),
                            o.percentileMs(50),
                            o.percentileMs(90),
                            o.percentileMs(99),
                            o.percentileMs(99.9),
                            o.latencyUs().getMaxValue() / 1000.0,
                            o.statuses())));
        }
        sb.append("\nFull distribution: [stable.hgrm](stable.hgrm) (HdrHistogram percentile output, ms).\n\n")
                .append(
                        "![latency by percentile](latency-by-percentile.png)\n\n![throughput and p99 over time](throughput-p99.png)\n");
    }

    private static void renderProfiledRun(Report r, StringBuilder sb) {
        LoadResult p = r.profiledRun().withProfiler();
        sb.append(String.format(
                Locale.ROOT,
                "%n## Profiled run (with profiler; not judged)%n%nAfter the stable run, the same load at %,.0f req/s "
                        + "for %d s with async-profiler attached to every local node, for the flame graphs: each event "
                        + "for a third of the run, one after the other (cpu, alloc, lock). Its latencies carry the "
                        + "profiler's overhead (attaching through jcmd, sampling) and are never used for the verdict; "
                        + "they are here to show that overhead.%n%n",
                r.profiledRun().targetRate(),
                p.durationS()));
        sb.append("| | stable run (no profiler) | profiled run (with profiler) |\n|---|---:|---:|\n");
        LoadResult s = r.stable();
        sb.append(String.format(
                Locale.ROOT,
                "| achieved req/s | %s | %,.0f |%n",
                s == null ? "-" : String.format(Locale.ROOT, "%,.0f", s.achievedRate()),
                p.achievedRate()));
        for (double q : List.of(50.0, 99.0, 99.9)) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| p%s ms | %s | %.3f |%n",
                    pct(q),
                    s == null ? "-" : String.format(Locale.ROOT, "%.3f", s.percentileMs(q)),
                    p.percentileMs(q)));
        }
        sb.append(String.format(
                Locale.ROOT,
                "| max ms | %s | %.3f |%n",
                s == null
                        ? "-"
                        : String.format(Locale.ROOT, "%.3f", s.latencyUs().getMaxValue() / 1000.0),
                p.latencyUs().getMaxValue() / 1000.0));
        for (Report.ProfileOutput o : r.profiles()) {
            sb.append(String.format(
                    "%n### node %d: %s (event=%s)%n%nFlame graph: [%s](%s)%n%n",
                    o.node(), o.kind(), o.event(), o.html(), o.html()));
            if (o.topFrames().size() <= 2) {
                sb.append(o.kind().equals("lock") ? "(no contended locks sampled)\n" : "(no samples)\n");
            } else {
                sb.append("```\n").append(String.join("\n", o.topFrames())).append("\n```\n");
            }
        }
    }

    private static void renderCauses(Report r, StringBuilder sb) {
        if (r.causes().isEmpty()) {
            if (r.causesAbsent() != null) {
                sb.append("\n## Causes\n\n").append(r.causesAbsent()).append('\n');
            }
            return;
        }
        sb.append("\n## Causes (each node, over the stable run)\n\n")
                .append(
                        "| node | GC pauses n | total ms | max ms | JIT deopts (code dropped) | alloc B/request | peak RssAnon MB "
                                + "| peak RssFile MB |\n")
                .append("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Report.NodeCauses c : r.causes()) {
            GcLog.Pauses gc = c.gc();
            RssSampler.Rss rss = c.peakRss();
            sb.append("| ")
                    .append(c.node())
                    .append(" | ")
                    .append(gc == null ? "-" : Integer.toString(gc.count()))
                    .append(" | ")
                    .append(cell(gc == null ? null : gc.totalMs(), "%.1f"))
                    .append(" | ")
                    .append(cell(gc == null ? null : gc.maxMs(), "%.1f"))
                    .append(" | ")
                    .append(
                            c.deopts() == null
                                    ? "-"
                                    : c.deopts().count() + " (" + c.deopts().dropping() + ")")
                    .append(" | ")
                    .append(cell(c.allocBytesPerRequest(), "%,.0f"))
                    .append(" | ")
                    .append(cell(rss == null ? null : mb(rss.anonKb()), "%.0f"))
                    .append(" | ")
                    .append(cell(rss == null ? null : mb(rss.fileKb()), "%.0f"))
                    .append(" |\n");
        }
        sb.append("\nGC pauses: the stop-the-world pauses that ended inside the stable run, from each node's GC log (");
        for (Report.NodeCauses c : r.causes()) {
            sb.append(c.node() > 1 ? ", " : "")
                    .append('[')
                    .append(c.gcLog())
                    .append("](")
                    .append(c.gcLog())
                    .append(')');
            if (!Double.isNaN(c.fromUptimeS())) {
                sb.append(String.format(Locale.ROOT, ": uptime %.3f-%.3f s", c.fromUptimeS(), c.toUptimeS()));
            }
        }
        sb.append("). alloc B/request: heap bytes the node's threads allocated per second during the run (JFR "
                + "`jdk.ThreadAllocationStatistics`, sampled every second) over the requests answered per second; in a "
                + "cluster every request reaches several nodes, and the nodes' figures add up to the cluster's. "
                + "Peak RSS: `RssAnon` (heap, native and thread memory) and `RssFile` (mapped files) from "
                + "`/proc/<pid>/status` every 500 ms; MB = 2^20 bytes. JIT deopts: the times the node's compiled code "
                + "met a branch or type it had been compiled without and went back to the interpreter, from the "
                + "`deoptimization` lines of the same log; in brackets, those that threw the compiled method away, "
                + "which runs slower until compiled again. On one CPU a burst of them can halve throughput for a few "
                + "tenths of a second. `-`: not measured (see the notes).\n");
        for (Report.NodeCauses c : r.causes()) {
            if (c.deopts() != null && c.deopts().dropping() > 0) {
                sb.append("\nNode ")
                        .append(c.node())
                        .append(": compiled code dropped at traps in (traps; at most ")
                        .append(Deoptimizations.TOP)
                        .append(" methods, most first) ");
                List<String> top = new ArrayList<>();
                c.deopts().topDropping().forEach((method, n) -> top.add("`" + method + "` (" + n + ")"));
                sb.append(String.join(", ", top)).append(".\n");
            }
        }
        Map<String, Double> base = r.baseline();
        if (base != null) {
            Map<String, Double> now = summary(r);
            sb.append("\n| | this run | baseline | ratio |\n|---|---:|---:|---:|\n");
            for (Report.NodeCauses c : r.causes()) {
                String n = "node" + c.node() + "_";
                String label = "node " + c.node() + " ";
                row(sb, label + "GC pauses", n + "gc_pauses", now, base, "%.0f");
                row(sb, label + "GC pause total ms", n + "gc_pause_total_ms", now, base, "%.1f");
                row(sb, label + "GC pause max ms", n + "gc_pause_max_ms", now, base, "%.1f");
                row(sb, label + "JIT deopts", n + "deopts", now, base, "%.0f");
                row(sb, label + "JIT deopts dropping code", n + "deopts_dropping", now, base, "%.0f");
                row(sb, label + "alloc B/request", n + "alloc_bytes_per_request", now, base, "%,.0f");
                row(sb, label + "peak RssAnon MB", n + "rss_anon_peak_mb", now, base, "%.0f");
                row(sb, label + "peak RssFile MB", n + "rss_file_peak_mb", now, base, "%.0f");
            }
        }
    }

    /**
     * The causes on one line for the console, e.g. {@code node 1: GC 3 pauses, 12.5 ms total, 6.1 ms max;
     * JIT 4 deopts (1 dropping code); 512 B/request; peak RssAnon 180 MB, RssFile 41 MB}; the reason when there
     * are none.
     */
    public static String causesLine(Report r) {
        if (r.causes().isEmpty()) {
            return r.causesAbsent() == null ? "not measured" : r.causesAbsent();
        }
        List<String> nodes = new ArrayList<>();
        for (Report.NodeCauses c : r.causes()) {
            GcLog.Pauses gc = c.gc();
            RssSampler.Rss rss = c.peakRss();
            nodes.add("node " + c.node() + ": "
                    + (gc == null
                            ? "GC -"
                            : String.format(
                                    Locale.ROOT,
                                    "GC %d pauses, %.1f ms total, %.1f ms max",
                                    gc.count(),
                                    gc.totalMs(),
                                    gc.maxMs()))
                    + (c.deopts() == null
                            ? ""
                            : "; JIT " + c.deopts().count() + " deopts ("
                                    + c.deopts().dropping() + " dropping code)")
                    + "; " + cell(c.allocBytesPerRequest(), "%,.0f") + " B/request; "
                    + (rss == null
                            ? "peak RSS -"
                            : String.format(
                                    Locale.ROOT,
                                    "peak RssAnon %.0f MB, RssFile %.0f MB",
                                    mb(rss.anonKb()),
                                    mb(rss.fileKb()))));
        }
        return String.join(" | ", nodes);
    }

    /** {@code v} in format {@code fmt}, or {@code -} when it was not measured. */
    private static String cell(Double v, String fmt) {
        return v == null ? "-" : String.format(Locale.ROOT, fmt, v);
    }

    private static void row(
            StringBuilder sb, String label, String key, Map<String, Double> now, Map<String, Double> base, String fmt) {
        Double v = now.get(key);
        sb.append("| ").append(label).append(" | ").append(v == null ? "-" : String.format(Locale.ROOT, fmt, v));
        if (base != null) {
            Double b = base.get(key);
            sb.append(" | ")
                    .append(b == null ? "-" : String.format(Locale.ROOT, fmt, b))
                    .append(" | ")
                    .append(b == null || v == null || b == 0 ? "-" : String.format(Locale.ROOT, "%.2f", v / b));
        }
        sb.append(" |\n");
    }

    /** A percentile as written in keys and tables: 50, 99.9, 99.99. */
    static String pct(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }

    /** The name of the JSON summary beside {@code report.md}. */
    public static final String SUMMARY_JSON = "summary.json";

    /**
     * The report for programs: one JSON object {@code {"title": string, "environment": {name: string, ...},
     * "summary": {key: number or null, ...}, "ycsb": string or null, "notes": [string, ...]}}, where
     * {@code summary} holds {@link #summary}'s figures (same keys and units; a figure that is not finite is
     * {@code null}) and {@code ycsb} YCSB's own output of a {@code --ycsb} run.
     */
    public static String summaryJson(Report r) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("title", r.title());
        ObjectNode env = root.putObject("environment");
        for (String[] row : r.environment()) {
            env.put(row[0], row.length > 1 ? row[1] : null);
        }
        ObjectNode figures = root.putObject("summary");
        summary(r).forEach((k, v) -> {
            if (Double.isFinite(v)) {
                figures.put(k, v);
            } else {
                figures.putNull(k);
            }
        });
        root.put("ycsb", r.ycsbOutput());
        ArrayNode notes = root.putArray("notes");
        r.notes().forEach(notes::add);
        return root.toPrettyString() + "\n";
    }

    /** Writes {@code report.md}, {@code summary.tsv} and {@code summary.json} into {@code dir}. */
    public static void write(Report r, Path dir) throws IOException {
        Files.writeString(dir.resolve("report.md"), render(r));
        Files.writeString(dir.resolve(SUMMARY_JSON), summaryJson(r));
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
            throw new IOException(
                    "--baseline " + dir + ": no " + SUMMARY + " there (is it a report directory of ringbase bench?)");
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
