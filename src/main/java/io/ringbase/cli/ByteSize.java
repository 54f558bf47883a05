package io.ringbase.cli;

import java.util.Locale;

/**
 * A size in bytes given on the command line: a whole number with an optional binary unit suffix
 * {@code k}, {@code m}, {@code g} (also {@code KiB}, {@code MiB}, {@code GiB}), e.g. {@code 16m}.
 *
 * @param bytes the size in bytes
 */
public record ByteSize(long bytes) {

    public ByteSize {
        if (bytes <= 0) {
            throw new IllegalArgumentException("size must be positive: " + bytes);
        }
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the bad input
     */
    public static ByteSize parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        String[][] suffixes = {{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"},
            {"k", "1024"}, {"m", "1048576"}, {"g", "1073741824"}, {"b", "1"}};
        for (String[] suffix : suffixes) {
            if (s.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                s = s.substring(0, s.length() - suffix[0].length()).trim();
                break;
            }
        }
        try {
            return new ByteSize(Math.multiplyExact(Long.parseLong(s), unit));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a size in bytes: '" + text + "' (examples: 1048576, 512k, 16m, 1g)");
        }
    }

    @Override
    public String toString() {
        return bytes + " bytes";
    }
}
