package io.ringbase.storage.lsm.compaction;

import io.ringbase.throttle.ByteRateLimiter;
import io.ringbase.throttle.Sleeper;
import java.util.function.LongSupplier;

/**
 * Paces the bytes compaction writes, so that a merge's output reaches the disk as an even stream rather
 * than as a burst that the WAL's syncs then queue behind; auto-tuned, as RocksDB's
 * {@code GenericRateLimiter} with {@code auto_tuned = true}.
 *
 * <p>The rate starts at the configured maximum and moves within [maximum / {@value #RANGE_FACTOR},
 * maximum]: at the end of each tuning period ({@value #TUNE_PERIOD_MS} ms) in which a merge was paced
 * (periods without one, between compactions, change nothing), the rate rises by {@value #ADJUST_PERCENT} % if more than
 * {@value #HIGH_WATERMARK_PERCENT} % of those paces had to wait, and falls by as much if fewer than
 * {@value #LOW_WATERMARK_PERCENT} % did. The rate so follows what the merges need, and their writes are
 * spread over time instead of coming as fast as the CPU allows.
 *
 * <p>It never holds compaction back while it is behind: a pace with {@code behind} set waits for nothing
 * and counts for no tuning, so writes are slowed ({@link CompactionOptions#slowdownTables()}) no sooner
 * than without a limit. Thread-safe (a merge of {@code admin cleanup} may run beside the compaction
 * thread's); a pace waits while holding the limiter, so two merges share one rate.
 */
public final class CompactionRateLimiter {

    /** The lowest rate is the maximum divided by this (RocksDB's {@code kAllowedRangeFactor}). */
    static final int RANGE_FACTOR = 20;
    /** Step of one tuning, percent (RocksDB's {@code kAdjustFactorPct}). */
    static final int ADJUST_PERCENT = 5;
    /** Above this share of paces that waited the rate rises, percent (RocksDB's high watermark). */
    static final int HIGH_WATERMARK_PERCENT = 90;
    /** Below this share it falls, percent (RocksDB's low watermark). */
    static final int LOW_WATERMARK_PERCENT = 50;
    /** Length of a tuning period, ms. */
    static final long TUNE_PERIOD_MS = 1_000;

    private final long maxBytesPerSecond;
    private final long minBytesPerSecond;
    private final ByteRateLimiter bucket;
    private final LongSupplier nanoTime;
    private long periodStartNanos;
    private int calls;
    private int waited;

    /**
     * @param maxBytesPerSecond the highest rate, bytes/s; 0 for no limit
     * @param nanoTime          a monotonic clock, ns ({@code System::nanoTime})
     * @param sleeper           how to wait
     * @throws IllegalArgumentException if {@code maxBytesPerSecond} is negative
     */
    public CompactionRateLimiter(long maxBytesPerSecond, LongSupplier nanoTime, Sleeper sleeper) {
        if (maxBytesPerSecond < 0) {
            throw new IllegalArgumentException(
                    "the compaction rate must be >= 0 bytes/s (0: unlimited), got " + maxBytesPerSecond);
        }
        this.maxBytesPerSecond = maxBytesPerSecond;
        this.minBytesPerSecond = Math.max(1, maxBytesPerSecond / RANGE_FACTOR);
        this.bucket = new ByteRateLimiter(maxBytesPerSecond, nanoTime, sleeper);
        this.nanoTime = nanoTime;
        this.periodStartNanos = nanoTime.getAsLong();
    }

    /**
     * Takes {@code bytes} just written by a merge, first waiting while the rate is exceeded, unless
     * compaction is {@code behind}.
     *
     * @param bytes  bytes the merge wrote since its last pace (at least 0)
     * @param behind whether compaction is behind (as {@link CompactionPriority} judges): no wait then
     * @return the time waited, ns
     * @throws InterruptedException if interrupted while waiting
     */
    public synchronized long pace(long bytes, boolean behind) throws InterruptedException {
        if (maxBytesPerSecond == 0 || behind || bytes <= 0) {
            return 0;
        }
        tune();
        long wait = bucket.acquire(bytes);
        calls++;
        if (wait > 0) {
            waited++;
        }
        return wait;
    }

    /** The rate in force, bytes/s; 0 for unlimited. */
    public synchronized long rateBytesPerSecond() {
        return bucket.rate();
    }

    private void tune() {
        long now = nanoTime.getAsLong();
        if (now - periodStartNanos < TUNE_PERIOD_MS * 1_000_000) {
            return;
        }
        if (calls > 0) {
            long rate = bucket.rate();
            long step = Math.max(1, rate * ADJUST_PERCENT / 100);
            if (waited * 100L > (long) HIGH_WATERMARK_PERCENT * calls) {
                bucket.setRate(Math.min(maxBytesPerSecond, rate + step));
            } else if (waited * 100L < (long) LOW_WATERMARK_PERCENT * calls) {
                bucket.setRate(Math.max(minBytesPerSecond, rate - step));
            }
        }
        periodStartNanos = now;
        calls = 0;
        waited = 0;
    }
}
