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
 * @param profiledRun  the separate run under async-profiler that made the flame graphs, or null when there was
 *                     none; the stable run never has the profiler attached, so that its latencies and the SLO
 *                     verdict are the node's own
 * @param profiles     flame graphs and top frames of the profiled run, one per node and event
 * @param causes       GC pauses, allocation and RSS of each local node over the stable run (empty when not
 *                     measured)
 * @param causesAbsent why there are no causes, for the report to say instead of the table, or null
 * @param ycsbOutput   YCSB's own output, or null
 * @param baseline     the summary of an earlier report to compare against, or null
 * @param baselineName the earlier report's directory, or null
 * @param notes        lines for the notes section (warnings, node exit codes)
 */
public record Report(
        String title,
        List<String[]> environment,
        List<SaturationLadder.Step> ladder,
        long saturation,
        double stableTarget,
        LoadResult stable,
        ProfiledRun profiledRun,
        List<ProfileOutput> profiles,
        List<NodeCauses> causes,
        String causesAbsent,
        String ycsbOutput,
        Map<String, Double> baseline,
        String baselineName,
        List<String> notes) {

    /** Percentiles of the stable run's table. */
    public static final List<Double> PERCENTILES = List.of(50.0, 75.0, 90.0, 99.0, 99.9, 99.99);

    /**
     * The run under async-profiler, after the stable run at the same rate and for as long: its latencies carry
     * the profiler's overhead and are shown as "with profiler", never judged.
     *
     * @param targetRate   its constant rate in requests per second (the stable run's)
     * @param withProfiler what it measured
     */
    public record ProfiledRun(double targetRate, LoadResult withProfiler) {}

    /**
     * One profile of one node.
     *
     * @param node      node number (1-based)
     * @param kind      {@code cpu}, {@code alloc} or {@code lock}
     * @param event     async-profiler's event, e.g. {@code itimer}
     * @param html      the flame graph's file name, relative to the report
     * @param topFrames the flat profile's header and top frames
     */
    public record ProfileOutput(int node, String kind, String event, String html, List<String> topFrames) {}

    /**
     * What one node did over the stable run: the causes beside the latencies. A null field could not be
     * measured; the notes say why.
     *
     * @param node                 node number (1-based)
     * @param gc                   stop-the-world GC pauses that ended inside the run, from the node's GC log
     * @param deopts               the JIT deoptimizations in the run, from the same log as {@code gc}; null when
     *                             not measured
     * @param allocBytesPerRequest heap bytes the node allocated per request the target answered (JFR); in a
     *                             cluster the nodes' figures add up to the cluster's bytes per request
     * @param peakRss              peak {@code RssAnon} and {@code RssFile}, sampled every 500 ms
     * @param gcLog                the node's whole GC log, relative to the report directory
     * @param fromUptimeS          the run's start in the node's uptime (the GC log's clock), in seconds; NaN when
     *                             unknown
     * @param toUptimeS            the run's end in the node's uptime, in seconds; NaN when unknown
     */
    public record NodeCauses(
            int node,
            GcLog.Pauses gc,
            Deoptimizations.Summary deopts,
            Double allocBytesPerRequest,
            RssSampler.Rss peakRss,
            String gcLog,
            double fromUptimeS,
            double toUptimeS) {}
}
