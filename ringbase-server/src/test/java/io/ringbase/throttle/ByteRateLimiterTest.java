package io.ringbase.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link ByteRateLimiter} on a clock the test moves: the sleeps are the clock's only movement. */
class ByteRateLimiterTest {

    long now = 1_000_000_000L;
    long slept;

    final Sleeper sleeper = nanos -> {
        slept += nanos;
        now += nanos;
    };

    @Test
    void theLongRunRateHoldsWhateverThePageSize() throws Exception {
        ByteRateLimiter limiter = new ByteRateLimiter(1_000_000, () -> now, sleeper); // 1 MB/s
        long start = now;
        for (int i = 0; i < 100; i++) {
            limiter.acquire(300_000); // larger than a third of the bucket
        }
        // 30 MB at 1 MB/s, the first second's worth passing at once: 29 s
        assertThat(TimeUnit.NANOSECONDS.toMillis(now - start)).isBetween(28_900L, 29_100L);
    }

    @Test
    void idleTimeRefillsTheBucketButNoMoreThanOneSecondsWorth() throws Exception {
        ByteRateLimiter limiter = new ByteRateLimiter(1_000, () -> now, sleeper);
        assertThat(limiter.acquire(1_000)).isZero();
        now += TimeUnit.SECONDS.toNanos(60); // a minute idle
        assertThat(limiter.acquire(1_000)).isZero();
        assertThat(limiter.acquire(500)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
    }

    @Test
    void zeroIsUnlimited() throws Exception {
        ByteRateLimiter limiter = new ByteRateLimiter(0, () -> now, sleeper);
        for (int i = 0; i < 1000; i++) {
            limiter.acquire(1L << 30);
        }
        assertThat(slept).isZero();
        assertThatThrownBy(() -> new ByteRateLimiter(-1, () -> now, sleeper)).hasMessageContaining(">= 0");
    }

    @Test
    void aNewRateHoldsFromTheNextAcquire() throws Exception {
        ByteRateLimiter limiter = new ByteRateLimiter(1_000, () -> now, sleeper);
        assertThat(limiter.acquire(1_000)).isZero(); // the first second's worth
        limiter.setRate(4_000);
        assertThat(limiter.rate()).isEqualTo(4_000);
        assertThat(limiter.acquire(2_000)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500)); // 2,000 B at 4,000 B/s
        assertThatThrownBy(() -> limiter.setRate(0)).hasMessageContaining(">= 1");
        assertThatThrownBy(() -> new ByteRateLimiter(0, () -> now, sleeper).setRate(5))
                .hasMessageContaining("limited");
    }
}
