package io.ringbase.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Measures the causes beside the latency on every local node over one window, the stable run: the GC pauses
 * in the node's GC log ({@link GcLog}) and its JIT deoptimizations in the same log ({@link Deoptimizations}), the
 * heap bytes its threads allocated ({@link AllocationSampler}, JFR) and its peak RSS ({@link RssSampler}).
 *
 * <p>In order: {@link #prepare} before the warm-up starts the JFR recording (so JFR's own start-up, its class
 * loading and the GC that may follow, falls before the measured run) and reads each node's uptime;
 * {@link #openWindow} starts the window of the stable run and the RSS samplers for its length; {@link #results},
 * after the run (before the profiled run), stops JFR and cuts the window out of the GC logs and the allocation
 * samples. Nothing in the window runs a jcmd (the profiler is never attached in it), so the stable run's
 * latencies carry no measurement overhead but a JFR event per thread per second and a {@code /proc} read every
 * 500 ms. A measure that fails is left out (null) and the reason goes to the notes; it never fails the run.
 */
public final class CausesMeter {

    private final Path workDir;
    private final List<Jcmd> nodes;
    private final List<Path> gcLogs;
    private final Path reportDir;
    private final AllocationSampler allocation;
    private final List<List<NodeUptime.Reading>> uptimes = new ArrayList<>();
    private final List<Boolean> recording = new ArrayList<>();
    private final List<RssSampler> rss = new ArrayList<>();
    private long windowStartNanos;
    private long windowEndNanos;
    private Instant windowStart;
    private Instant windowEnd;

    /**
     * @param workDir   where the JFR files go (a temp dir)
     * @param pids      the local nodes' JVM pids, node 1 first
     * @param gcLogs    each node's GC log, in the same order, inside {@code reportDir}
     * @param reportDir the report directory, which the GC log links are relative to
     */
    public CausesMeter(Path workDir, List<Long> pids, List<Path> gcLogs, Path reportDir) throws IOException {
        this.workDir = workDir;
        this.nodes = pids.stream().map(Jcmd::of).toList();
        this.gcLogs = gcLogs.stream().map(Path::toAbsolutePath).toList();
        this.reportDir = reportDir.toAbsolutePath();
        this.allocation = new AllocationSampler(workDir);
        for (int i = 0; i < pids.size(); i++) {
            uptimes.add(new ArrayList<>());
            recording.add(false);
        }
    }

    /** Starts JFR and reads the uptime of every node; failures go to {@code notes}. */
    public void prepare(List<String> notes) throws InterruptedException {
        for (int i = 0; i < nodes.size(); i++) {
            try {
                allocation.start(nodes.get(i), jfrFile(i));
                recording.set(i, true);
            } catch (IOException e) {
                notes.add("Node " + (i + 1) + ": no allocation figures: " + e.getMessage());
            }
            readUptime(i, notes);
        }
    }

    /**
     * Opens the window of {@code durationS} seconds from now (call right before the stable run starts: its load
     * generator sends for that long) and starts the RSS samplers. The window is timed, not closed by the run's
     * return, which comes later by the time it takes to read the load generator's output.
     */
    public void openWindow(int durationS) {
        for (Jcmd node : nodes) {
            RssSampler s = RssSampler.of(node.pid());
            s.start(durationS * 1000L);
            rss.add(s);
        }
        windowStart = Instant.now();
        windowStartNanos = System.nanoTime();
        windowEnd = windowStart.plusSeconds(durationS);
        windowEndNanos = windowStartNanos + durationS * 1_000_000_000L;
    }

    /**
     * Stops JFR and returns each node's causes over the window.
     *
     * @param answeredPerSecond requests the target answered per second over the window (the denominator of
     *                          bytes per request)
     * @param notes             where the reasons for measures left out go
     */
    public List<Report.NodeCauses> results(double answeredPerSecond, List<String> notes) throws InterruptedException {
        List<Report.NodeCauses> out = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            String node = "Node " + (i + 1) + ": ";
            RssSampler.Rss peak = null;
            try {
                peak = rss.get(i).stop();
            } catch (IOException e) {
                notes.add(node + "no RSS figures: " + e.getMessage());
            }
            readUptime(i, notes);
            GcLog.Pauses gc = null;
            Deoptimizations.Summary deopts = null;
            double from = Double.NaN;
            double to = Double.NaN;
            if (uptimes.get(i).isEmpty()) {
                notes.add(node + "no GC figures: the node's uptime could not be read to place the run in its GC log.");
            } else {
                NodeUptime clock = NodeUptime.fromReadings(uptimes.get(i));
                from = clock.at(windowStartNanos);
                to = clock.at(windowEndNanos);
                try {
                    List<String> lines = Files.readAllLines(gcLogs.get(i));
                    gc = GcLog.within(GcLog.pauses(lines), from, to);
                    deopts = Deoptimizations.within(Deoptimizations.traps(lines), from, to);
                } catch (IOException e) {
                    notes.add(node + "no GC figures: " + gcLogs.get(i) + ": " + e.getMessage());
                }
            }
            Double perRequest = null;
            if (recording.get(i)) {
                try {
                    Optional<AllocationSampler.Allocation> a = AllocationSampler.allocated(
                            allocation.stop(nodes.get(i), jfrFile(i)), windowStart, windowEnd);
                    if (a.isEmpty()) {
                        notes.add(node + "no allocation figures: fewer than two JFR samples in the run.");
                    } else if (answeredPerSecond <= 0) {
                        notes.add(node + "no allocation per request: no request was answered.");
                    } else {
                        perRequest = a.get().bytesPerSecond() / answeredPerSecond;
                    }
                } catch (IOException e) {
                    notes.add(node + "no allocation figures: " + e.getMessage());
                }
            }
            out.add(new Report.NodeCauses(
                    i + 1,
                    gc,
                    deopts,
                    perRequest,
                    peak,
                    reportDir.relativize(gcLogs.get(i)).toString(),
                    from,
                    to));
        }
        return out;
    }

    private void readUptime(int node, List<String> notes) throws InterruptedException {
        try {
            uptimes.get(node).add(NodeUptime.read(nodes.get(node)));
        } catch (IOException e) {
            notes.add("Node " + (node + 1) + ": jcmd VM.uptime failed: " + e.getMessage());
        }
    }

    private Path jfrFile(int node) {
        return workDir.resolve("node" + (node + 1) + "-alloc.jfr");
    }
}
