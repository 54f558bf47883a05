package io.ringbase.clock;

import java.util.concurrent.TimeUnit;

/**
 * How a node's {@link HybridLogicalClock} reads time and bounds the versions it accepts.
 *
 * @param maxOffsetMs  how far ahead of this node's wall clock a version from another node may be, ms
 *                     ({@code --max-clock-offset}; default {@value HybridLogicalClock#DEFAULT_MAX_OFFSET_MS},
 *                     1 ms to one day)
 * @param testOffsetMs added to the system clock for this node's versions only, ms (the hidden
 *                     {@code --test-clock-offset-ms}, for fault-injection tests that skew one node's
 *                     clock; default 0, at most one day either way)
 */
public record ClockOptions(long maxOffsetMs, long testOffsetMs) {

    public ClockOptions {
        if (maxOffsetMs < 1 || maxOffsetMs > HybridLogicalClock.MAX_MAX_OFFSET_MS) {
            throw new IllegalArgumentException(
                    "maximum clock offset must be 1 ms to 1 day, got " + maxOffsetMs + " ms");
        }
        if (Math.abs(testOffsetMs) > TimeUnit.DAYS.toMillis(1)) {
            throw new IllegalArgumentException("test clock offset must be within one day, got " + testOffsetMs + " ms");
        }
    }

    /** A 500 ms bound on the unskewed system clock. */
    public static ClockOptions defaults() {
        return new ClockOptions(HybridLogicalClock.DEFAULT_MAX_OFFSET_MS, 0);
    }

    public ClockOptions withMaxOffsetMs(long ms) {
        return new ClockOptions(ms, testOffsetMs);
    }

    public ClockOptions withTestOffsetMs(long ms) {
        return new ClockOptions(maxOffsetMs, ms);
    }

    /** The wall clock the node's versions follow: the system clock plus {@link #testOffsetMs()}, Unix epoch ms. */
    public TimeSource wallClockMs() {
        return TimeSource.SYSTEM.offsetBy(testOffsetMs);
    }

    /** The clock of node {@code nodeIndex} with these options. */
    public HybridLogicalClock newClock(int nodeIndex) {
        return new HybridLogicalClock(wallClockMs(), nodeIndex, maxOffsetMs);
    }
}
