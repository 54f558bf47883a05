package io.ringbase.cli;

import java.util.Locale;

/**
 * A duration given on the command line: a whole number with a unit suffix {@code ms}, {@code s},
 * {@code m}, {@code h} or {@code d}, e.g. {@code 10d}; a bare number is milliseconds.
 *
 * @param millis the duration in ms, at least 0
 */
public record TimeSpan(long millis) {

    public TimeSpan {
        if (millis < 0) {
            throw new IllegalArgumentException("duration must not be negative: " + millis);
        }
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the bad input
     */
    public static TimeSpan parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        String[][] suffixes = {{"ms", "1"}, {"s", "1000"}, {"m", "60000"}, {"h", "3600000"}, {"d", "86400000"}};
        for (String[] suffix : suffixes) {
            if (s.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                s = s.substring(0, s.length() - suffix[0].length()).trim();
                break;
            }
        }
        try {
            return new TimeSpan(Math.multiplyExact(Long.parseLong(s), unit));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (examples: 500ms, 30s, 3h, 10d)");
        }
    }

    @Override
    public String toString() {
        return millis + " ms";
    }
}
