package io.ringbase.api;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.regex.Pattern;

/**
 * The {@code ttl} parameter of a PUT: a time to live in seconds, written as a plain positive decimal
 * ({@code 10}, {@code 0.5}, {@code .25}), at most {@link #MAX_SECONDS} (100 years of 365.25 days).
 * No sign, exponent, {@code NaN} or {@code Infinity}; at most {@link #MAX_CHARS} characters.
 */
public final class Ttl {

    /** Largest accepted ttl in seconds: 100 years of 365.25 days. */
    public static final long MAX_SECONDS = 36_525L * 24 * 60 * 60;

    /** Longest accepted ttl text. */
    public static final int MAX_CHARS = 32;

    private static final Pattern DECIMAL = Pattern.compile("[0-9]*(\\.[0-9]*)?");
    private static final BigDecimal MAX = BigDecimal.valueOf(MAX_SECONDS);

    private Ttl() {}

    /**
     * Parses {@code text} (seconds) into whole milliseconds, rounded up: {@code 0.0001} gives 1 ms.
     *
     * @return milliseconds, at least 1
     * @throws BadRequestException if {@code text} is not a positive decimal of at most 100 years
     */
    public static long parseMillis(String text) throws BadRequestException {
        if (text.isEmpty()
                || text.length() > MAX_CHARS
                || !DECIMAL.matcher(text).matches()
                || text.equals(".")) {
            throw new BadRequestException(
                    "ttl must be a positive decimal number of seconds, got '" + abbreviate(text) + "'");
        }
        BigDecimal seconds = new BigDecimal(text);
        if (seconds.signum() <= 0) {
            throw new BadRequestException("ttl must be greater than 0");
        }
        if (seconds.compareTo(MAX) > 0) {
            throw new BadRequestException("ttl must be at most " + MAX_SECONDS + " seconds (100 years)");
        }
        return seconds.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
    }

    private static String abbreviate(String s) {
        return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS) + "...";
    }
}
