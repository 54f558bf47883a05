package io.ringbase.cli;

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

    private static final String[][] UNITS = {
        {"kib", "1024"},
        {"mib", "1048576"},
        {"gib", "1073741824"},
        {"k", "1024"},
        {"m", "1048576"},
        {"g", "1073741824"},
        {"b", "1"}
    };

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the bad input
     */
    public static ByteSize parse(String text) {
        return new ByteSize(UnitSuffix.parse(text, UNITS, "a size in bytes", "1048576, 512k, 16m, 1g"));
    }

    /**
     * Parses {@code text} as {@link #parse} does, but also accepts a size of 0 (for settings where 0 means
     * "none").
     *
     * @return the size in bytes, &ge; 0
     * @throws IllegalArgumentException naming the bad input
     */
    public static long parseOrZero(String text) {
        long bytes = UnitSuffix.parse(text, UNITS, "a size in bytes", "0, 1048576, 512k, 16m, 1g");
        if (bytes < 0) {
            throw new IllegalArgumentException("size must not be negative: " + text);
        }
        return bytes;
    }

    @Override
    public String toString() {
        return bytes + " bytes";
    }
}
