package io.ringbase.cluster.replication;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A percentile of this coordinator's recent remote replica read latencies: the delay of a speculative
 * retry ({@link SpeculativeRetry}, as Cassandra's {@code 99p} uses its table's read latency).
 *
 * <p>Reads are counted in log-scale buckets, eight per power of two (a bucket's upper bound is at most
 * 12.5% above any value in it) from 1,024 ns to about 137 s. A window closes after
 * {@link #WINDOW_SAMPLES} reads (the first after {@link #FIRST_WINDOW_SAMPLES}), or on the first read
 * {@link #MAX_WINDOW_NANOS} after it opened; its percentile, as the upper bound of the bucket holding it,
 * becomes the estimate until the next one closes. Before the first closes the estimate is
 * {@code initialNanos}. Recording is two atomic increments, no allocation. Thread-safe: a read recorded
 * while a window closes may count in either window.
 */
final class ReadLatency {

    static final int WINDOW_SAMPLES = 1000;
    static final int FIRST_WINDOW_SAMPLES = 100;
    static final long MAX_WINDOW_NANOS = 10_000_000_000L;

    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    private static final int MIN_EXPONENT = 10; // values below 2^10 ns share bucket 0
    private static final int EXPONENTS = 27; // 2^10 .. 2^37 ns

    private final double percentile;
    private final AtomicLongArray counts = new AtomicLongArray(EXPONENTS * SUB);
    private final AtomicLong samples = new AtomicLong();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile long windowStartNanos;
    private volatile long estimateNanos;
    private volatile boolean estimated;

    /**
     * @param percentile   the percentile estimated, 0 &lt; p &lt; 100
     * @param initialNanos the estimate before any window closed, ns
     * @param nowNanos     {@link System#nanoTime()} now
     */
    ReadLatency(double percentile, long initialNanos, long nowNanos) {
        if (!(percentile > 0 && percentile < 100)) {
            throw new IllegalArgumentException("percentile must be within 0 and 100, got " + percentile);
        }
        this.percentile = percentile;
        this.estimateNanos = initialNanos;
        this.windowStartNanos = nowNanos;
    }

    /** Records one read that took {@code latencyNanos}, answered at {@code nowNanos} ({@link System#nanoTime()}). */
    void record(long latencyNanos, long nowNanos) {
        counts.incrementAndGet(bucket(latencyNanos));
        long n = samples.incrementAndGet();
        if (n >= (estimated ? WINDOW_SAMPLES : FIRST_WINDOW_SAMPLES)
                || nowNanos - windowStartNanos >= MAX_WINDOW_NANOS) {
            closeWindow(nowNanos);
        }
    }

    /** The estimate, ns. */
    long estimateNanos() {
        return estimateNanos;
    }

    private void closeWindow(long nowNanos) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            long[] window = new long[counts.length()];
            long total = 0;
            for (int i = 0; i < window.length; i++) {
                window[i] = counts.getAndSet(i, 0);
                total += window[i];
            }
            samples.addAndGet(-total);
            windowStartNanos = nowNanos;
            if (total == 0) {
                return;
            }
            long rank = (long) Math.ceil(percentile / 100 * total);
            long seen = 0;
            for (int i = 0; i < window.length; i++) {
                seen += window[i];
                if (seen >= rank) {
                    estimateNanos = upperBound(i);
                    estimated = true;
                    return;
                }
            }
        } finally {
            closing.set(false);
        }
    }

    static int bucket(long nanos) {
        if (nanos < (1L << MIN_EXPONENT)) {
            return 0;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(nanos);
        if (exponent >= MIN_EXPONENT + EXPONENTS) {
            return EXPONENTS * SUB - 1;
        }
        int sub = (int) (nanos >>> (exponent - SUB_BITS)) & (SUB - 1);
        return (exponent - MIN_EXPONENT) * SUB + sub;
    }

    /** The least value above every value of bucket {@code i}, ns. */
    static long upperBound(int i) {
        int exponent = i / SUB + MIN_EXPONENT;
        long sub = i % SUB;
        return (SUB + sub + 1) << (exponent - SUB_BITS);
    }
}
