package io.ringbase.cli;

import java.io.PrintStream;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import me.tongfei.progressbar.ProgressBarConsumer;

/**
 * Where a progress bar goes when standard error is not a terminal (a script, a CI log, a pipe): one whole
 * line per change of its whole percentage, at most one every {@link #MIN_INTERVAL_MS}, and its last state
 * when it closes. A terminal's bar redraws itself in place with carriage returns; written to a file, those
 * redraws ran together on one line, one per 200 ms.
 */
final class ProgressLines implements ProgressBarConsumer {

    /** Least time between two lines, ms. */
    static final long MIN_INTERVAL_MS = 5_000;

    private static final Pattern PERCENT = Pattern.compile("(\\d+)%");

    private final PrintStream out;
    private final LongSupplier clockMs;
    private String last = null;
    private String printed = null;
    private int printedPercent = -1;
    private long printedAtMs;

    /**
     * @param out     where the lines go (standard error)
     * @param clockMs a clock in ms, for the interval between lines
     */
    ProgressLines(PrintStream out, LongSupplier clockMs) {
        this.out = out;
        this.clockMs = clockMs;
    }

    @Override
    public int getMaxRenderedLength() {
        return 100;
    }

    @Override
    public void accept(String rendered) {
        String line = rendered.strip();
        last = line;
        int percent = percent(line);
        long now = clockMs.getAsLong();
        if (printed == null || (percent != printedPercent && now - printedAtMs >= MIN_INTERVAL_MS)) {
            print(line, percent, now);
        }
    }

    @Override
    public void close() {
        if (last != null && !last.equals(printed)) {
            print(last, percent(last), clockMs.getAsLong());
        }
        out.flush();
    }

    private void print(String line, int percent, long now) {
        out.println(line);
        printed = line;
        printedPercent = percent;
        printedAtMs = now;
    }

    private static int percent(String line) {
        Matcher m = PERCENT.matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
