package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

    /** 1,000 requests in 10 s: 990 at 1 ms, 9 at 5 ms, one at 40 ms. */
    private static LoadResult stable() {
        LoadResult r = LoadResult.empty(10);
        for (int i = 0; i < 1000; i++) {
            long us = i < 990 ? 1_000 : i < 999 ? 5_000 : 40_000;
            r.record(i / 100.0, us, 201);
        }
        return r;
    }

    /** The profiled run: 1,000 requests in 10 s, 980 at 3 ms and 20 at 50 ms (the profiler's overhead). */
    private static LoadResult withProfiler() {
        LoadResult r = LoadResult.empty(10);
        for (int i = 0; i < 1000; i++) {
            r.record(i / 100.0, i < 980 ? 3_000 : 50_000, 201);
        }
        return r;
    }

    private static Report report(Map<String, Double> baseline) {
        return report(baseline, true, List.of(), null);
    }

    private static Report report(
            Map<String, Double> baseline, boolean profiled, List<Report.NodeCauses> causes, String causesAbsent) {
        SaturationLadder ladder = new SaturationLadder(100, 10, 0.1, 3);
        ladder.record(new SaturationLadder.Measurement(100, 100, 1.0, 0));
        ladder.record(new SaturationLadder.Measurement(200, 150, 30.0, 0));
        return new Report(
                "ringbase bench: put",
                List.<String[]>of(new String[] {"JDK", "25"}),
                ladder.steps(),
                100,
                80,
                stable(),
                profiled ? new Report.ProfiledRun(80, withProfiler()) : null,
                profiled
                        ? List.of(new Report.ProfileOutput(
                                1,
                                "cpu",
                                "itimer",
                                "profiles/node1-cpu.html",
                                List.of(
                                        "  ns  percent  samples  top",
                                        "  --  -------  -------  ---",
                                        "  10   50.00%  1  foo")))
                        : List.of(),
                causes,
                causesAbsent,
                null,
                baseline,
                baseline == null ? null : "bench-reports/old-put",
                List.of("a note"));
    }

    /** Node 1 fully measured; node 2 without allocation figures (JFR failed there) and without deoptimizations. */
    private static List<Report.NodeCauses> twoNodes() {
        Map<String, Integer> dropped = new java.util.LinkedHashMap<>();
        dropped.put("io.netty.channel.epoll.EpollIoHandler.run", 2);
        dropped.put("io.ringbase.api.wire.RequestDecoder.headerField", 1);
        return List.of(
                new Report.NodeCauses(
                        1,
                        new GcLog.Pauses(12, 34.56, 6.1),
                        new Deoptimizations.Summary(7, 3, dropped),
                        512.4,
                        new RssSampler.Rss(184_320, 41_000),
                        "node1-gc.log",
                        75.25,
                        95.25),
                new Report.NodeCauses(
                        2,
                        new GcLog.Pauses(0, 0, 0),
                        null,
                        null,
                        new RssSampler.Rss(102_400, 20_480),
                        "node2-gc.log",
                        Double.NaN,
                        Double.NaN));
    }

    @Test
    void rendersLadderPercentilesPlotsAndProfiles() {
        String md = ReportWriter.render(report(null));
        assertThat(md)
                .startsWith("# ringbase bench: put\n")
                .contains("| JDK | 25 |")
                .contains("| 1 | 100 | 100 | 1.00 | 0.00% | pass |")
                .contains(
                        "| 2 | 200 | 150 | 30.00 | 0.00% | fail: achieved 75% of target; p99 30.00 ms > SLO 10.0 ms |")
                .contains("**Saturation rate: 100 req/s**")
                .contains("Constant rate 80 req/s for 10 s")
                .contains("| p50 | 1.000 |")
                .contains("| p99 | 1.000 |")
                .contains("| p99.9 | 5.003 |")
                .contains("| max | 40.031 |")
                .contains("![latency by percentile](latency-by-percentile.png)")
                .contains("### node 1: cpu (event=itimer)")
                .contains("[profiles/node1-cpu.html](profiles/node1-cpu.html)")
                .contains("  10   50.00%  1  foo")
                .contains("- a note")
                .doesNotContain("baseline");
    }

    @Test
    void baselineAddsARatioColumn() {
        Map<String, Double> old =
                Map.of("p50_ms", 2.0, "p99_ms", 0.5, "saturation_rps", 50.0, "stable_achieved_rps", 200.0);
        String md = ReportWriter.render(report(old));
        assertThat(md)
                .contains("| | ms | baseline ms | ratio |")
                .contains("| p50 | 1.000 | 2.000 | 0.50 |")
                .contains("| p99 | 1.000 | 0.500 | 2.00 |")
                .contains("| p75 | 1.000 | - | - |")
                .contains("| saturation | 100 | 50 | 2.00 |")
                .contains("| stable achieved | 100 | 200 | 0.50 |")
                .contains("Baseline: `bench-reports/old-put`");
    }

    @Test
    void summaryRoundTripsThroughTheReportDirectory(@TempDir Path dir) throws IOException {
        Report r = report(null);
        ReportWriter.write(r, dir);
        assertThat(dir.resolve("report.md")).exists();
        Map<String, Double> back = ReportWriter.readSummary(dir);
        assertThat(back)
                .containsEntry("saturation_rps", 100.0)
                .containsEntry("stable_target_rps", 80.0)
                .containsEntry("stable_achieved_rps", 100.0)
                .containsKeys("p50_ms", "p99.99_ms", "max_ms");
        assertThat(back).isEqualTo(ReportWriter.summary(r));
    }

    @Test
    void aBaselineWithoutSummaryIsRefused(@TempDir Path dir) {
        assertThatThrownBy(() -> ReportWriter.readSummary(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no summary.tsv");
    }

    @Test
    void plotsArePngFiles(@TempDir Path dir) throws IOException {
        LoadResult r = stable();
        Plots.latencyByPercentile(r.latencyUs(), "t", dir.resolve("a.png"));
        Plots.throughputAndP99(r.perSecondUs(), 100, "t", dir.resolve("b.png"));
        for (String f : List.of("a.png", "b.png")) {
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(dir.resolve(f)), 4);
            assertThat(head).containsExactly(0x89, 'P', 'N', 'G');
        }
    }

    @Test
    void topFramesTakeTheFlatSectionOnly() {
        List<String> text = List.of(
                "--- Execution profile ---",
                "Total samples : 3",
                "",
                "--- 5 ns (50%), 1 sample",
                "  [ 0] foo",
                "",
                "          ns  percent  samples  top",
                "  ----------  -------  -------  ---",
                "         5   50.00%        1  foo",
                "         3   30.00%        1  bar",
                "         2   20.00%        1  baz",
                "");
        assertThat(Profiler.topFrames(text, 2))
                .containsExactly(
                        "          ns  percent  samples  top",
                        "  ----------  -------  -------  ---",
                        "         5   50.00%        1  foo",
                        "         3   30.00%        1  bar");
    }

    @Test
    void theHeaderSaysTheStableRunHadNoProfilerAndWhereTheFlameGraphsComeFrom() {
        assertThat(ReportWriter.render(report(null, true, List.of(), null)))
                .contains(
                        "Profiler attached during the stable run: **no**. Its latencies and the verdict are the node's "
                                + "own; the flame graphs come from a separate profiled run after it");
        assertThat(ReportWriter.render(report(null, false, List.of(), null)))
                .contains("Profiler attached during the stable run: **no**; no profiled run")
                .doesNotContain("## Profiled run");
    }

    @Test
    void theProfiledRunsLatenciesAreShownWithProfilerAndNeverAsTheStableRuns(@TempDir Path dir) throws IOException {
        Report r = report(null, true, List.of(), null);
        String md = ReportWriter.render(r);
        assertThat(md)
                .contains("| p99 | 1.000 |")
                .contains("## Profiled run (with profiler; not judged)")
                .contains("the same load at 80 req/s for 10 s with async-profiler attached")
                .contains("| | stable run (no profiler) | profiled run (with profiler) |")
                .contains("| p99 ms | 1.000 | 50.0")
                .doesNotContain("| p99 | 50.0");
        assertThat(md.indexOf("### node 1: cpu (event=itimer)")).isGreaterThan(md.indexOf("## Profiled run"));
        ReportWriter.write(r, dir);
        Map<String, Double> back = ReportWriter.readSummary(dir);
        assertThat(back).containsEntry("p99_ms", 1.0).containsEntry("profiled", 0.0);
        assertThat(back.get("with_profiler_p99_ms")).isCloseTo(50.0, org.assertj.core.data.Offset.offset(0.1));
        assertThat(ReportWriter.summary(report(null, false, List.of(), null)))
                .doesNotContainKey("with_profiler_p99_ms");
    }

    @Test
    void causesAreATablePerNodeWithTheGcLogsLinked() {
        String md = ReportWriter.render(report(null, true, twoNodes(), null));
        assertThat(md)
                .contains("## Causes (each node, over the stable run)")
                .contains(
                        "| node | GC pauses n | total ms | max ms | JIT deopts (code dropped) | alloc B/request | peak RssAnon MB "
                                + "| peak RssFile MB |")
                .contains("| 1 | 12 | 34.6 | 6.1 | 7 (3) | 512 | 180 | 40 |")
                .contains("| 2 | 0 | 0.0 | 0.0 | - | - | 100 | 20 |")
                .contains(
                        "Node 1: compiled code dropped at traps in (traps; at most 5 methods, most first) "
                                + "`io.netty.channel.epoll.EpollIoHandler.run` (2), `io.ringbase.api.wire.RequestDecoder.headerField` (1).")
                .doesNotContain("Node 2: compiled code dropped")
                .contains("[node1-gc.log](node1-gc.log): uptime 75.250-95.250 s, [node2-gc.log](node2-gc.log))");
        assertThat(md.indexOf("## Causes"))
                .isGreaterThan(md.indexOf("## Stable run"))
                .isLessThan(md.indexOf("## Profiled run"));
    }

    @Test
    void withoutCausesTheReportSaysWhyInsteadOfATable() {
        String md = ReportWriter.render(report(null, false, List.of(), "Not available: the node was given by --url."));
        assertThat(md)
                .contains("## Causes\n\nNot available: the node was given by --url.\n")
                .doesNotContain("| node |");
        assertThat(ReportWriter.render(report(null))).doesNotContain("## Causes");
    }

    @Test
    void causesGoIntoTheSummaryAndAreComparedWithABaseline(@TempDir Path dir) throws IOException {
        Report r = report(null, false, twoNodes(), null);
        ReportWriter.write(r, dir);
        Map<String, Double> back = ReportWriter.readSummary(dir);
        assertThat(back)
                .containsEntry("profiled", 0.0)
                .containsEntry("node1_gc_pauses", 12.0)
                .containsEntry("node1_gc_pause_total_ms", 34.56)
                .containsEntry("node1_gc_pause_max_ms", 6.1)
                .containsEntry("node1_alloc_bytes_per_request", 512.4)
                .containsEntry("node1_rss_anon_peak_mb", 180.0)
                .containsEntry("node1_rss_file_peak_mb", 41_000 / 1024.0)
                .containsEntry("node2_gc_pauses", 0.0)
                .containsEntry("node1_deopts", 7.0)
                .containsEntry("node1_deopts_dropping", 3.0)
                .doesNotContainKey("node2_alloc_bytes_per_request")
                .doesNotContainKey("node2_deopts");
        String md = ReportWriter.render(report(
                Map.of("profiled", 0.0, "node1_gc_pauses", 24.0, "node1_alloc_bytes_per_request", 1024.8),
                false,
                twoNodes(),
                null));
        assertThat(md)
                .contains("| | this run | baseline | ratio |")
                .contains("| node 1 GC pauses | 12 | 24 | 0.50 |")
                .contains("| node 1 alloc B/request | 512 | 1,025 | 0.50 |")
                .contains("| node 1 JIT deopts dropping code | 3 | - | - |")
                .contains("| node 2 alloc B/request | - | - | - |")
                .doesNotContain("Not like for like");
    }

    @Test
    void aBaselineWhoseStableRunWasProfiledIsFlagged() {
        String md = ReportWriter.render(report(Map.of("profiled", 1.0, "p50_ms", 2.0), true, List.of(), null));
        assertThat(md).contains("**Not like for like:** the profiler was attached during the baseline's stable run");
    }

    @Test
    void theConsoleLineHasEveryNodesCauses() {
        assertThat(ReportWriter.causesLine(report(null, false, twoNodes(), null)))
                .isEqualTo(
                        "node 1: GC 12 pauses, 34.6 ms total, 6.1 ms max; JIT 7 deopts (3 dropping code); 512 B/request; "
                                + "peak RssAnon 180 MB, RssFile 40 MB"
                                + " | node 2: GC 0 pauses, 0.0 ms total, 0.0 ms max; - B/request; peak RssAnon 100 MB, RssFile 20 MB");
        assertThat(ReportWriter.causesLine(report(null, false, List.of(), "Not available: --url.")))
                .isEqualTo("Not available: --url.");
    }

    @Test
    void theJsonSummaryHoldsTheSameFiguresAsTheTsv(@TempDir Path dir) throws Exception {
        Report r = report(null, true, twoNodes(), null);
        ReportWriter.write(r, dir);
        JsonNode json = new ObjectMapper()
                .readTree(dir.resolve(ReportWriter.SUMMARY_JSON).toFile());
        assertThat(json.path("title").textValue()).isEqualTo("ringbase bench: put");
        assertThat(json.path("environment").path("JDK").textValue()).isEqualTo("25");
        Map<String, Double> tsv = ReportWriter.readSummary(dir);
        assertThat(tsv).isNotEmpty();
        List<String> keys = new ArrayList<>();
        json.path("summary").fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactlyElementsOf(tsv.keySet());
        tsv.forEach((k, v) ->
                assertThat(json.path("summary").path(k).doubleValue()).as(k).isEqualTo(v));
        assertThat(json.path("notes").get(0).textValue()).isEqualTo("a note");
        assertThat(json.path("ycsb").isNull()).isTrue();
    }

    @Test
    void aMixedRunHasAHistogramPerOperation() {
        LoadResult gets = LoadResult.empty(10);
        LoadResult puts = LoadResult.empty(10);
        for (int i = 0; i < 900; i++) {
            gets.record(i / 90.0, 1_000, i < 890 ? 200 : 404);
        }
        for (int i = 0; i < 100; i++) {
            puts.record(i / 10.0, 8_000, 201);
        }
        LoadResult mixed = LoadResult.empty(10);
        mixed.addOperation("GET", gets);
        mixed.addOperation("PUT", puts);
        assertThat(mixed.answered()).isEqualTo(1000);
        Report r = new Report(
                "ringbase bench: mixed",
                List.<String[]>of(new String[] {"JDK", "25"}),
                List.of(),
                0,
                100,
                mixed,
                null,
                List.of(),
                List.of(),
                null,
                null,
                null,
                null,
                List.of());
        String md = ReportWriter.render(r);
        assertThat(md)
                .contains("| operation | answered | req/s | p50 ms |")
                .contains("| GET | 900 | 90 | 1.000 |")
                .contains("| PUT | 100 | 10 | 8.00")
                .contains("{200=890, 404=10}");
        Map<String, Double> summary = ReportWriter.summary(r);
        assertThat(summary)
                .containsEntry("get_p99_ms", 1.0)
                .containsEntry("put_achieved_rps", 10.0)
                .containsKey("put_max_ms");
        assertThat(summary.get("put_p50_ms")).isCloseTo(8.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(ReportWriter.render(report(null)))
                .as("one operation: no per-operation table")
                .doesNotContain("| operation |");
    }
}
