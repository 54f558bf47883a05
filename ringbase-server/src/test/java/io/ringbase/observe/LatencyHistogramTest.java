package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void observationsLandInTheFirstBucketWhoseBoundHoldsThem() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(50_000); // le 50 µs, inclusive
        h.record(50_001); // le 100 µs
        h.record(20_000_000_000L); // +Inf
        long[] c = h.snapshot().counts();
        assertThat(c[0]).isEqualTo(1);
        assertThat(c[1]).isEqualTo(1);
        assertThat(c[c.length - 1]).isEqualTo(1);
        assertThat(h.snapshot().count()).isEqualTo(3);
        assertThat(h.snapshot().sumNanos()).isEqualTo(50_000 + 50_001 + 20_000_000_000L);
    }

    @Test
    void quantileInterpolatesInsideItsBucketAsHistogramQuantileDoes() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 99; i++) {
            h.record(80_000); // (50 µs, 100 µs]
        }
        h.record(3_000_000); // (2.5 ms, 5 ms]
        LatencyHistogram.Snapshot s = h.snapshot();
        assertThat(s.quantileNanos(0.99)).isEqualTo(100_000); // rank 99 ends the second bucket
        assertThat(s.quantileNanos(0.5)).isBetween(50_000L, 100_000L);
        assertThat(s.quantileNanos(1.0)).isEqualTo(5_000_000);
        assertThat(LatencyHistogram.Snapshot.empty().quantileNanos(0.99)).isZero();
    }

    @Test
    void aWindowIsTheDifferenceOfTwoSnapshots() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(1_000_000);
        LatencyHistogram.Snapshot before = h.snapshot();
        h.record(7_000_000);
        LatencyHistogram.Snapshot window = h.snapshot().minus(before);
        assertThat(window.count()).isEqualTo(1);
        assertThat(window.quantileNanos(0.99)).isBetween(5_000_000L, 10_000_000L);
    }
}
