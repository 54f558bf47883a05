package io.ringbase.bench;

import java.util.List;
import java.util.Map;

/**
 * Everything {@code report.md} shows, gathered by {@link BenchRun} and rendered by {@link ReportWriter}.
 *
 * @param title        the heading, e.g. {@code ringbase bench: put}
 * @param environment  name/value rows: CPUs, JDK, heap, commit, flags, tools
 * @param ladder       the saturation search's steps (empty when skipped)
 * @param saturation   the highest passing ladder rate in requests per second (0 when skipped)
 * @param stableTarget the stable run's constant rate in requests per second (0 when there was none)
 * @param stable       what the stable run measured, or null
 * @param profiles     flame graphs and top frames, one per node and event
 * @param ycsbOutput   YCSB's own output, or null
 * @param baseline     the summary of an earlier report to compare against, or null
 * @param baselineName the earlier report's directory, or null
 * @param notes        lines for the notes section (warnings, node exit codes)
 */
public record Report(String title, List<String[]> environment, List<SaturationLadder.Step> ladder, long saturation,
        double stableTarget, LoadResult stable, List<ProfileOutput> profiles, String ycsbOutput,
        Map<String, Double> baseline, String baselineName, List<String> notes) {

    /** Percentiles of the stable run's table. */
    public static final double[] PERCENTILES = {50, 75, 90, 99, 99.9, 99.99};

    /**
     * One profile of one node.
     *
     * @param node      node number (1-based)
     * @param kind      {@code cpu}, {@code alloc} or {@code lock}
     * @param event     async-profiler's event, e.g. {@code itimer}
     * @param html      the flame graph's file name, relative to the report
     * @param topFrames the flat profile's header and top frames
     */
    public record ProfileOutput(int node, String kind, String event, String html, List<String> topFrames) {
    }
}
