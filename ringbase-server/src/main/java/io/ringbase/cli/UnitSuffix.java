package io.ringbase.cli;

import java.util.Locale;

/** Parses a whole number with an optional unit suffix, for {@link ByteSize} and {@link TimeSpan}. */
final class UnitSuffix {

    private UnitSuffix() {}

    /**
     * @param text     e.g. {@code 16m}
     * @param units    suffix and multiplier pairs, longest suffixes first (the first match wins)
     * @param examples shown in the error message
     * @return the number times its unit's multiplier (1 without a suffix)
     * @throws IllegalArgumentException naming the bad input
     */
    static long parse(String text, String[][] units, String kind, String examples) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        for (String[] suffix : units) {
            if (s.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                s = s.substring(0, s.length() - suffix[0].length()).trim();
                break;
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not " + kind + ": '" + text + "' (examples: " + examples + ")");
        }
    }
}
