package io.ringbase.cluster.replication;

import java.util.Locale;

/**
 * How a coordinator spreads a read over a key's replicas (Cassandra's {@code speculative_retry} table
 * option, whose values this follows). A read first goes to {@link #initialFanout} replicas, preferring
 * this node and replicas not marked slow ({@link Liveness#isSlow}); each further replica gets it when
 * one asked fails or, with a delay, when that delay passes with fewer than {@code ack} answers in
 * (then again after each further delay). Applies to reads and to the version read of a quorum write;
 * writes always go to every replica.
 *
 * <ul>
 *   <li>{@code Np} ({@code 99p}, the default; {@code 50p} to {@code 99.9p}): {@code ack} replicas first,
 *       one more after the N-th percentile of this coordinator's recent replica read latency
 *       ({@link ReadLatency}).</li>
 *   <li>{@code Nms}: {@code ack} replicas first, one more after a fixed N milliseconds.</li>
 *   <li>{@code none}: {@code ack} replicas first, another only when one fails.</li>
 *   <li>{@code always}: every replica not marked slow at once (at least {@code ack}); the slow ones
 *       after the 99th percentile. Costs {@code from - ack} more replica reads per read, and keeps
 *       background read repair of every replica for reads below a quorum.</li>
 * </ul>
 *
 * @param kind       which of the four
 * @param percentile for {@link Kind#PERCENTILE}: 50 to 99.9; else 99 (the delay for slow replicas)
 * @param fixedMs    for {@link Kind#FIXED}: the delay, ms (at least 1); else 0
 */
public record SpeculativeRetry(Kind kind, double percentile, long fixedMs) {

    /** The four policies. */
    public enum Kind {
        PERCENTILE,
        FIXED,
        NONE,
        ALWAYS
    }

    /** The default: {@code 99p}. */
    public static final SpeculativeRetry DEFAULT = new SpeculativeRetry(Kind.PERCENTILE, 99, 0);

    /** {@code always}: every replica at once, as before speculative retry existed. */
    public static final SpeculativeRetry ALWAYS = new SpeculativeRetry(Kind.ALWAYS, 99, 0);

    public SpeculativeRetry {
        if (kind == Kind.FIXED ? fixedMs < 1 : fixedMs != 0) {
            throw new IllegalArgumentException("a fixed delay needs at least 1 ms, other policies none: " + fixedMs);
        }
        if (!(percentile >= 50 && percentile <= 99.9)) {
            throw new IllegalArgumentException("the percentile must be within 50 and 99.9, got " + percentile);
        }
    }

    /**
     * Parses {@code 99p}, {@code 95.5p}, {@code 20ms}, {@code none} or {@code always} (case ignored).
     *
     * @throws IllegalArgumentException for anything else, naming the accepted forms
     */
    public static SpeculativeRetry parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.equals("none")) {
                return new SpeculativeRetry(Kind.NONE, 99, 0);
            }
            if (s.equals("always")) {
                return ALWAYS;
            }
            if (s.endsWith("ms")) {
                return new SpeculativeRetry(Kind.FIXED, 99, Long.parseLong(s.substring(0, s.length() - 2)));
            }
            if (s.endsWith("p")) {
                return new SpeculativeRetry(Kind.PERCENTILE, Double.parseDouble(s.substring(0, s.length() - 1)), 0);
            }
        } catch (IllegalArgumentException e) { // also NumberFormatException
            throw new IllegalArgumentException("bad speculative retry '" + text + "': " + e.getMessage()
                    + " (use e.g. 99p, 20ms, none or always)");
        }
        throw new IllegalArgumentException("bad speculative retry '" + text + "' (use e.g. 99p, 20ms, none or always)");
    }

    /**
     * How many replicas a read goes to at once.
     *
     * @param ack     answers the read needs
     * @param notSlow replicas up and not marked slow among those it may use
     */
    int initialFanout(int ack, int notSlow) {
        return kind == Kind.ALWAYS ? Math.max(ack, notSlow) : ack;
    }

    /** Whether a delay sends the read to one more replica (all but {@code none}). */
    boolean delays() {
        return kind != Kind.NONE;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case PERCENTILE ->
                (percentile == Math.rint(percentile) ? Long.toString((long) percentile) : Double.toString(percentile))
                        + "p";
            case FIXED -> fixedMs + "ms";
            case NONE -> "none";
            case ALWAYS -> "always";
        };
    }
}
