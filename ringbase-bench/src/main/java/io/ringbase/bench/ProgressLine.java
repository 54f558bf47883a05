package io.ringbase.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress of the stable run (and of the profiled run after it), for the person watching: one line per second with the elapsed seconds. The nodes
 * are not asked anything during or around the run: scraping each node's {@code /metrics} once a second put
 * 100-200 ms stalls into the run's first seconds on a one-CPU node at 90% of its saturation rate (GET p99
 * 131-137 ms with the scrapes, 1.0-5.9 ms without), and one scrape just before the run and one before its
 * lead-in still left 25-85 ms. What the nodes answered is in the report, from the load generator's records.
 * Called from one thread.
 */
final class ProgressLine {

    private final String run;
    private final int durationS;
    private final PrintStream log;

    /**
     * @param run       the run's name in the line, e.g. {@code stable run}
     * @param durationS the run's length, s
     * @param log       where the lines go (bench's stderr)
     */
    ProgressLine(String run, int durationS, PrintStream log) {
        this.run = run;
        this.durationS = durationS;
        this.log = log;
    }

    /** Prints the line for second {@code elapsedS} of the run. */
    void tick(int elapsedS) {
        log.println(String.format(Locale.ROOT, "bench: %s %d/%d s", run, elapsedS, durationS));
    }
}
