package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    private static Report report(Map<String, Double> baseline) {
        SaturationLadder ladder = new SaturationLadder(100, 10, 0.1, 3);
        ladder.record(new SaturationLadder.Measurement(100, 100, 1.0, 0));
        ladder.record(new SaturationLadder.Measurement(200, 150, 30.0, 0));
        return new Report("ringbase bench: put", List.<String[]>of(new String[] {"JDK", "25"}), ladder.steps(), 100, 80,
                stable(), List.of(new Report.ProfileOutput(1, "cpu", "itimer", "profiles/node1-cpu.html",
                        List.of("  ns  percent  samples  top", "  --  -------  -------  ---", "  10   50.00%  1  foo"))),
                null, baseline, baseline == null ? null : "bench-reports/old-put", List.of("a note"));
    }

    @Test
    void rendersLadderPercentilesPlotsAndProfiles() {
        String md = ReportWriter.render(report(null));
        assertThat(md).startsWith("# ringbase bench: put\n")
                .contains("| JDK | 25 |")
                .contains("| 1 | 100 | 100 | 1.00 | 0.00% | pass |")
                .contains("| 2 | 200 | 150 | 30.00 | 0.00% | fail: achieved 75% of target; p99 30.00 ms > SLO 10.0 ms |")
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
        Map<String, Double> old = Map.of("p50_ms", 2.0, "p99_ms", 0.5, "saturation_rps", 50.0, "stable_achieved_rps", 200.0);
        String md = ReportWriter.render(report(old));
        assertThat(md).contains("| | ms | baseline ms | ratio |")
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
        assertThat(back).containsEntry("saturation_rps", 100.0).containsEntry("stable_target_rps", 80.0)
                .containsEntry("stable_achieved_rps", 100.0).containsKeys("p50_ms", "p99.99_ms", "max_ms");
        assertThat(back).isEqualTo(ReportWriter.summary(r));
    }

    @Test
    void aBaselineWithoutSummaryIsRefused(@TempDir Path dir) {
        assertThatThrownBy(() -> ReportWriter.readSummary(dir)).isInstanceOf(IOException.class)
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
        List<String> text = List.of("--- Execution profile ---", "Total samples : 3", "", "--- 5 ns (50%), 1 sample",
                "  [ 0] foo", "", "          ns  percent  samples  top", "  ----------  -------  -------  ---",
                "         5   50.00%        1  foo", "         3   30.00%        1  bar", "         2   20.00%        1  baz", "");
        assertThat(Profiler.topFrames(text, 2)).containsExactly("          ns  percent  samples  top",
                "  ----------  -------  -------  ---", "         5   50.00%        1  foo", "         3   30.00%        1  bar");
    }
}
