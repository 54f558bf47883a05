package io.ringbase.observe;

import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram with fixed bucket bounds ({@link #BOUNDS_NANOS}, 50 µs to 10 s, and +Inf), one
 * {@link LongAdder} per bucket: recording is a scan of 17 longs and two uncontended adds, with no
 * allocation, so event loops can record every request. Exported as a Prometheus classic histogram
 * (seconds). Thread-safe.
 */
public final class LatencyHistogram {

    /** Upper bounds of the finite buckets, ns (inclusive, as Prometheus's {@code le}). */
    static final long[] BOUNDS_NANOS = {
        50_000,
        100_000,
        250_000,
        500_000,
        1_000_000,
        2_500_000,
        5_000_000,
        10_000_000,
        25_000_000,
        50_000_000,
        100_000_000,
        250_000_000,
        500_000_000,
        1_000_000_000L,
        2_500_000_000L,
        5_000_000_000L,
        10_000_000_000L
    };

    private final LongAdder[] buckets = new LongAdder[BOUNDS_NANOS.length + 1]; // the last is +Inf
    private final LongAdder sumNanos = new LongAdder();

    public LatencyHistogram() {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    /** Records one observation of {@code nanos} (negative counts as 0). */
    public void record(long nanos) {
        int i = 0;
        while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
            i++;
        }
        buckets[i].increment();
        sumNanos.add(Math.max(0, nanos));
    }

    /** The counts now. */
    public Snapshot snapshot() {
        long[] counts = new long[buckets.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = buckets[i].sum();
        }
        return new Snapshot(counts, sumNanos.sum());
    }

    /**
     * Counts per bucket (not cumulative; the last is +Inf) and the sum of all observations.
     *
     * @param counts   one per bucket, {@link #BOUNDS_NANOS} then +Inf
     * @param sumNanos the sum of the observations, ns
     */
    public record Snapshot(long[] counts, long sumNanos) {

        /** An empty snapshot. */
        public static Snapshot empty() {
            return new Snapshot(new long[BOUNDS_NANOS.length + 1], 0);
        }

        /** Observations in all buckets. */
        public long count() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }

        /** This snapshot plus {@code other}. */
        public Snapshot plus(Snapshot other) {
            long[] sum = counts.clone();
            for (int i = 0; i < sum.length; i++) {
                sum[i] += other.counts[i];
            }
            return new Snapshot(sum, sumNanos + other.sumNanos);
        }

        /** This snapshot minus an earlier one of the same histogram: the observations in between. */
        public Snapshot minus(Snapshot earlier) {
            long[] diff = counts.clone();
            for (int i = 0; i < diff.length; i++) {
                diff[i] -= earlier.counts[i];
            }
            return new Snapshot(diff, sumNanos - earlier.sumNanos);
        }

        /**
         * The {@code q} quantile (0..1) in ns, interpolated linearly inside its bucket as Prometheus's
         * {@code histogram_quantile} does; the largest finite bound if it falls in +Inf; 0 if empty.
         */
        public long quantileNanos(double q) {
            long total = count();
            if (total == 0) {
                return 0;
            }
            double rank = q * total;
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                if (seen + counts[i] >= rank && counts[i] > 0) {
                    if (i == BOUNDS_NANOS.length) {
                        return BOUNDS_NANOS[BOUNDS_NANOS.length - 1];
                    }
                    long lower = i == 0 ? 0 : BOUNDS_NANOS[i - 1];
                    double within = (rank - seen) / counts[i];
                    return lower + (long) ((BOUNDS_NANOS[i] - lower) * within);
                }
                seen += counts[i];
            }
            return BOUNDS_NANOS[BOUNDS_NANOS.length - 1];
        }
    }
}
