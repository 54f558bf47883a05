package io.ringbase.storage.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.throttle.Sleeper;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link CompactionRateLimiter} on a clock the test moves: its waits and the test's steps move it. */
class CompactionRateLimiterTest {

    static final long MAX = 1_000_000; // 1 MB/s

    long now = 1_000_000_000L;
    long slept;

    final Sleeper sleeper = nanos -> {
        slept += nanos;
        now += nanos;
    };

    CompactionRateLimiter limiter(long max) {
        return new CompactionRateLimiter(max, () -> now, sleeper);
    }

    @Test
    void aMergeFasterThanTheRateIsHeldToIt() throws Exception {
        CompactionRateLimiter rate = limiter(MAX);
        long start = now;
        for (int i = 0; i < 200; i++) {
            rate.pace(100_000, false); // as fast as it can: only the waits move the clock
        }
        // 20 MB, the first second's worth passing at once: 19 s; every pace waited, so the rate stays
        assertThat(TimeUnit.NANOSECONDS.toMillis(now - start)).isBetween(18_900L, 19_100L);
        assertThat(rate.rateBytesPerSecond()).isEqualTo(MAX);
    }

    @Test
    void behindNothingWaits() throws Exception {
        CompactionRateLimiter rate = limiter(MAX);
        for (int i = 0; i < 100; i++) {
            assertThat(rate.pace(1_000_000, true)).isZero();
        }
        assertThat(slept).isZero();
    }

    @Test
    void zeroIsUnlimited() throws Exception {
        CompactionRateLimiter rate = limiter(0);
        for (int i = 0; i < 100; i++) {
            rate.pace(1L << 30, false);
        }
        assertThat(slept).isZero();
        assertThat(rate.rateBytesPerSecond()).isZero();
        assertThatThrownBy(() -> limiter(-1)).hasMessageContaining(">= 0");
    }

    @Test
    void theRateFollowsASlowMergeDownToATwentiethAndBackUp() throws Exception {
        CompactionRateLimiter rate = limiter(MAX);
        // a merge that writes 1 kB every 100 ms (10 kB/s, below the floor) never waits: 5 % less each second
        for (int i = 0; i < 10 * 120; i++) {
            rate.pace(1_000, false);
            now += TimeUnit.MILLISECONDS.toNanos(100);
        }
        assertThat(rate.rateBytesPerSecond()).isEqualTo(MAX / CompactionRateLimiter.RANGE_FACTOR);
        assertThat(slept).isZero();
        // then merges as fast as the CPU goes: every pace waits, and the rate climbs back, 5 % a second
        long before = rate.rateBytesPerSecond();
        for (int i = 0; i < 2_000; i++) {
            rate.pace(10_000, false);
        }
        assertThat(rate.rateBytesPerSecond()).isGreaterThan(before * 2);
        for (int i = 0; i < 100_000; i++) {
            rate.pace(10_000, false);
        }
        assertThat(rate.rateBytesPerSecond()).isEqualTo(MAX);
    }

    @Test
    void timeWithoutMergesTunesNothing() throws Exception {
        CompactionRateLimiter rate = limiter(MAX);
        for (int i = 0; i < 100; i++) { // one merge every minute, each faster than the rate
            now += TimeUnit.SECONDS.toNanos(60);
            for (int j = 0; j < 30; j++) {
                rate.pace(100_000, false);
            }
        }
        assertThat(rate.rateBytesPerSecond()).isEqualTo(MAX);
    }
}
