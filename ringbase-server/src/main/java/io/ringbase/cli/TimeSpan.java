package io.ringbase.cli;

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

    private static final String[][] UNITS = {
        {"ms", "1"}, {"s", "1000"}, {"m", "60000"}, {"h", "3600000"}, {"d", "86400000"}
    };

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the bad input
     */
    public static TimeSpan parse(String text) {
        return new TimeSpan(UnitSuffix.parse(text, UNITS, "a duration", "500ms, 30s, 3h, 10d"));
    }

    /** As it could be written: in the largest unit that divides it ({@code 3h}, {@code 1500ms}). */
    @Override
    public String toString() {
        for (int i = UNITS.length - 1; i > 0; i--) {
            long unit = Long.parseLong(UNITS[i][1]);
            if (millis != 0 && millis % unit == 0) {
                return millis / unit + UNITS[i][0];
            }
        }
        return millis + "ms";
    }
}
