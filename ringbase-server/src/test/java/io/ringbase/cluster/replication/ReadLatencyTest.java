package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The latency percentile behind the speculative retry delay. */
class ReadLatencyTest {

    @Test
    void everyValueIsBelowItsBucketsUpperBoundByAtMostAnEighth() {
        Random random = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long v = 1024 + (long) (Math.exp(random.nextDouble() * Math.log(60e9)));
            int b = ReadLatency.bucket(v);
            long upper = ReadLatency.upperBound(b);
            assertThat(upper).as("value %d", v).isGreaterThan(v);
            assertThat((double) upper).as("value %d", v).isLessThanOrEqualTo(v * 1.125 + 1);
            if (b > 0) {
                assertThat(ReadLatency.upperBound(b - 1)).as("value %d", v).isLessThanOrEqualTo(v);
            }
        }
        assertThat(ReadLatency.bucket(0)).isZero();
        assertThat(ReadLatency.bucket(Long.MAX_VALUE)).isEqualTo(ReadLatency.bucket(1L << 40));
    }

    @Test
    void theEstimateIsTheInitialOneUntilTheFirstWindowCloses() {
        ReadLatency latency = new ReadLatency(99, 10_000_000, 0);
        for (int i = 0; i < ReadLatency.FIRST_WINDOW_SAMPLES - 1; i++) {
            latency.record(200_000, 1);
        }
        assertThat(latency.estimateNanos()).isEqualTo(10_000_000);
        latency.record(200_000, 1);
        assertThat(latency.estimateNanos()).isBetween(200_001L, 225_000L);
    }

    @Test
    void theEstimateIsThePercentileOfTheLastWindow() {
        ReadLatency latency = new ReadLatency(99, 10_000_000, 0);
        for (int i = 0; i < ReadLatency.FIRST_WINDOW_SAMPLES; i++) {
            latency.record(100_000, 1);
        }
        // a window of 1,000: 985 fast, 15 slow; the 99th percentile is among the slow
        for (int i = 0; i < ReadLatency.WINDOW_SAMPLES; i++) {
            latency.record(i < 985 ? 300_000 : 4_000_000, 2);
        }
        assertThat(latency.estimateNanos()).isBetween(4_000_001L, 4_500_000L);
        // the next window: only 5 slow, the 99th percentile is fast again
        for (int i = 0; i < ReadLatency.WINDOW_SAMPLES; i++) {
            latency.record(i < 995 ? 300_000 : 4_000_000, 3);
        }
        assertThat(latency.estimateNanos()).isBetween(300_001L, 337_500L);
    }

    @Test
    void aWindowAlsoClosesAfterItsLongestTime() {
        ReadLatency latency = new ReadLatency(50, 10_000_000, 0);
        latency.record(2_000_000, 5);
        latency.record(2_000_000, ReadLatency.MAX_WINDOW_NANOS + 5);
        assertThat(latency.estimateNanos()).isBetween(2_000_001L, 2_250_000L);
    }
}
