package io.ringbase.cluster.hint;

/**
 * Bounds and pacing of hinted handoff, validated on construction (a value that is not positive throws
 * {@link IllegalArgumentException}).
 *
 * @param maxAgeMs      a hint older than this (by its creation time on the coordinator) is dropped
 *                      instead of delivered, ms; default {@value #DEFAULT_MAX_AGE_MS} (3 h)
 * @param maxTotalBytes a new hint that would take the stored hints (all targets together, counted as
 *                      their encoded size, see {@link HintStore#totalBytes()}) past this is dropped,
 *                      bytes; default {@value #DEFAULT_MAX_TOTAL_BYTES} (1 GiB)
 * @param maxInFlight   writes of hints to one target that may await their answer at once;
 *                      default {@value #DEFAULT_MAX_IN_FLIGHT}
 * @param maxPerSecond  hints delivered to one target per second at most; default
 *                      {@value #DEFAULT_MAX_PER_SECOND}
 * @param queueCapacity hints accepted by {@link HintedHandoff#hint} but not yet written to the store;
 *                      when full, new hints are dropped; default {@value #DEFAULT_QUEUE_CAPACITY}
 */
public record HintOptions(long maxAgeMs, long maxTotalBytes, int maxInFlight, int maxPerSecond, int queueCapacity) {

    public static final long DEFAULT_MAX_AGE_MS = 3 * 60 * 60 * 1000L;
    public static final long DEFAULT_MAX_TOTAL_BYTES = 1L << 30;
    public static final int DEFAULT_MAX_IN_FLIGHT = 16;
    public static final int DEFAULT_MAX_PER_SECOND = 10_000;
    public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

    public HintOptions {
        requirePositive("maxAgeMs", maxAgeMs);
        requirePositive("maxTotalBytes", maxTotalBytes);
        requirePositive("maxInFlight", maxInFlight);
        requirePositive("maxPerSecond", maxPerSecond);
        requirePositive("queueCapacity", queueCapacity);
    }

    /** The defaults listed above. */
    public static HintOptions defaults() {
        return new HintOptions(
                DEFAULT_MAX_AGE_MS,
                DEFAULT_MAX_TOTAL_BYTES,
                DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_MAX_PER_SECOND,
                DEFAULT_QUEUE_CAPACITY);
    }

    public HintOptions withMaxAgeMs(long ms) {
        return new HintOptions(ms, maxTotalBytes, maxInFlight, maxPerSecond, queueCapacity);
    }

    public HintOptions withMaxTotalBytes(long bytes) {
        return new HintOptions(maxAgeMs, bytes, maxInFlight, maxPerSecond, queueCapacity);
    }

    public HintOptions withMaxInFlight(int writes) {
        return new HintOptions(maxAgeMs, maxTotalBytes, writes, maxPerSecond, queueCapacity);
    }

    public HintOptions withMaxPerSecond(int hints) {
        return new HintOptions(maxAgeMs, maxTotalBytes, maxInFlight, hints, queueCapacity);
    }

    public HintOptions withQueueCapacity(int hints) {
        return new HintOptions(maxAgeMs, maxTotalBytes, maxInFlight, maxPerSecond, hints);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
