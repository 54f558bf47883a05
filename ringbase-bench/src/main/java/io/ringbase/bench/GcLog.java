package io.ringbase.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's GC log: HotSpot unified logging of the {@code gc} tag at info level with the {@code uptime}
 * decorator, as {@link #jvmOption} asks for. Every stop-the-world pause is one line that ends in its
 * duration, written when the pause ends:
 *
 * <pre>
 * [2.790s] GC(0) Pause Young (Allocation Failure) 35M-&gt;5M(123M) 30.255ms           (Serial)
 * [8.611s] GC(2) Pause Remark 7M-&gt;7M(27M) 5.988ms                                 (G1)
 * </pre>
 *
 * <p>Concurrent phases ({@code Concurrent Mark Cycle 39.772ms}) are not pauses and are not counted. ZGC and
 * Shenandoah log their (sub-millisecond) pauses under {@code gc+phases}, not {@code gc}, so for them this
 * counts none; the launcher runs nodes on Serial or G1. The file also holds the JVM's deoptimizations
 * ({@link #jvmOption}), which {@link #pauses} skips and {@link Deoptimizations} reads.
 */
public final class GcLog {

    /** {@code [<uptime>s] ... Pause ... <duration>ms}; HotSpot may print a decimal comma under some locales. */
    private static final Pattern PAUSE =
            Pattern.compile("^\\[(\\d+[.,]\\d+)s\\].*\\bPause\\b.*?\\s(\\d+[.,]\\d+)ms\\s*$");

    private GcLog() {}

    /**
     * One stop-the-world pause.
     *
     * @param endUptimeS the JVM's uptime when the pause ended, in seconds (the line's decorator)
     * @param ms         the pause's length in milliseconds
     */
    public record Pause(double endUptimeS, double ms) {}

    /**
     * The pauses of a window.
     *
     * @param count   pauses
     * @param totalMs their summed length in milliseconds
     * @param maxMs   the longest one in milliseconds (0 when there was none)
     */
    public record Pauses(int count, double totalMs, double maxMs) {}

    /**
     * The {@code -Xlog} option that makes a JVM write this log to {@code file}, with its JIT deoptimizations
     * ({@link Deoptimizations}, one line per trap, few or none in a steady state) in the same file:
     * {@code -Xlog:gc,deoptimization=debug:file=<file>:uptime}.
     *
     * @throws IllegalArgumentException when the path has whitespace or a colon, which the option (and
     *                                  {@code bin/ringbase}'s splitting of {@code RINGBASE_JAVA_OPTS}) cannot carry
     */
    public static String jvmOption(Path file) {
        if (!fitsOption(file)) {
            throw new IllegalArgumentException("GC log path '" + file + "' has whitespace or ':', which -Xlog in "
                    + "RINGBASE_JAVA_OPTS cannot carry");
        }
        return "-Xlog:gc,deoptimization=debug:file=" + file + ":uptime";
    }

    /** True when {@code file} can go into {@link #jvmOption}: no whitespace, no ':'. */
    public static boolean fitsOption(Path file) {
        return !file.toString().matches("(?s).*[\\s:].*");
    }

    /** Every pause in the log's lines, in order; other lines are skipped. */
    public static List<Pause> pauses(List<String> lines) {
        List<Pause> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = PAUSE.matcher(line);
            if (m.matches()) {
                out.add(new Pause(number(m.group(1)), number(m.group(2))));
            }
        }
        return out;
    }

    /** The pauses that ended within {@code [fromUptimeS, toUptimeS]} (the JVM's uptime, seconds). */
    public static Pauses within(List<Pause> pauses, double fromUptimeS, double toUptimeS) {
        int n = 0;
        double total = 0;
        double max = 0;
        for (Pause p : pauses) {
            if (p.endUptimeS() >= fromUptimeS && p.endUptimeS() <= toUptimeS) {
                n++;
                total += p.ms();
                max = Math.max(max, p.ms());
            }
        }
        return new Pauses(n, total, max);
    }

    private static double number(String s) {
        return Double.parseDouble(s.replace(',', '.'));
    }
}
