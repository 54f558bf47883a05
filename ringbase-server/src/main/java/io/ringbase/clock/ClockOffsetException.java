package io.ringbase.clock;

/**
 * A version from another node was refused because its physical part is further ahead of this node's
 * wall clock than the clock's maximum offset ({@link HybridLogicalClock#observe}). Observing it would
 * drag this node's clock (and through it every other node's) forward for good, as CockroachDB's
 * {@code hlc.Clock} refuses timestamps beyond its {@code --max-offset}.
 */
public final class ClockOffsetException extends Exception {

    private final long version;
    private final long aheadMs;
    private final long maxOffsetMs;

    /**
     * @param version     the refused version
     * @param aheadMs     how far its physical part is ahead of this node's wall clock (ms); for a
     *                    negative version, {@code Long.MAX_VALUE}
     * @param maxOffsetMs the clock's bound (ms)
     */
    public ClockOffsetException(long version, long aheadMs, long maxOffsetMs) {
        super("version " + version + " is "
                + (version < 0 ? "negative (not a clock reading)" : aheadMs + " ms ahead of this node's clock")
                + ", more than the maximum clock offset of "
                + maxOffsetMs + " ms (--max-clock-offset); refused");
        this.version = version;
        this.aheadMs = aheadMs;
        this.maxOffsetMs = maxOffsetMs;
    }

    /** The refused version. */
    public long version() {
        return version;
    }

    /** How far the refused version was ahead of this node's wall clock, ms. */
    public long aheadMs() {
        return aheadMs;
    }

    /** The bound it exceeded, ms. */
    public long maxOffsetMs() {
        return maxOffsetMs;
    }
}
