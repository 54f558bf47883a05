package io.ringbase.bench;

import java.io.IOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps this process's {@link System#nanoTime()} to a node JVM's uptime, the clock of its GC log's
 * {@code uptime} decorator, so a window of the bench can be cut out of the log.
 *
 * <p>Both clocks are Linux's {@code CLOCK_MONOTONIC} ({@code System.nanoTime} here, {@code os::elapsedTime}
 * in the node), so they differ by a constant. A reading runs {@code jcmd <pid> VM.uptime}: the node reads
 * its uptime somewhere between the call and its return, mostly near the end (starting jcmd's own JVM is the
 * slow part), so {@code uptime - returnNanos} underestimates the constant by the time from the read to the
 * return. Of several readings the largest difference is the closest; with one reading, a window maps to
 * node uptimes at most a few tens of milliseconds early.
 */
public final class NodeUptime {

    private static final Pattern SECONDS = Pattern.compile("(?m)^\\s*(\\d+(?:[.,]\\d+)?)\\s*s\\s*$");

    private final double offsetS;

    private NodeUptime(double offsetS) {
        this.offsetS = offsetS;
    }

    /**
     * One {@code VM.uptime} reading.
     *
     * @param uptimeS      the uptime the node reported, in seconds
     * @param returnNanos  {@link System#nanoTime()} when jcmd had returned
     */
    public record Reading(double uptimeS, long returnNanos) {}

    /**
     * The mapping from readings of one node.
     *
     * @throws IllegalArgumentException when there are none
     */
    public static NodeUptime fromReadings(List<Reading> readings) {
        if (readings.isEmpty()) {
            throw new IllegalArgumentException("no VM.uptime readings");
        }
        double best = Double.NEGATIVE_INFINITY;
        for (Reading r : readings) {
            best = Math.max(best, r.uptimeS() - r.returnNanos() / 1e9);
        }
        return new NodeUptime(best);
    }

    /**
     * Reads the node's uptime once with {@code jcmd <pid> VM.uptime}.
     *
     * @throws IOException when jcmd fails or its output has no uptime
     */
    public static Reading read(Jcmd node) throws IOException, InterruptedException {
        String out = node.run("VM.uptime", List.of());
        long returned = System.nanoTime();
        return new Reading(parse(out), returned);
    }

    /**
     * The uptime in seconds in jcmd's {@code VM.uptime} output ({@code "<pid>:\n12.345 s\n"}).
     *
     * @throws IOException when there is no such line
     */
    static double parse(String jcmdOutput) throws IOException {
        Matcher m = SECONDS.matcher(jcmdOutput);
        if (!m.find()) {
            throw new IOException("no uptime in jcmd VM.uptime's output: " + jcmdOutput.strip());
        }
        return Double.parseDouble(m.group(1).replace(',', '.'));
    }

    /** The node's uptime in seconds at {@code nanos} of this process's {@link System#nanoTime()}. */
    public double at(long nanos) {
        return nanos / 1e9 + offsetS;
    }
}
