package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RequestHistory}: one point per interval from the client requests' counters, bounded. */
class RequestHistoryTest {

    @Test
    void eachPointHoldsItsIntervalsRateP99AndErrorsAndOnlyTheLastPointsAreKept() {
        RequestMetrics metrics = new RequestMetrics(List.of("entity", "admin"), List.of("entity"));
        try (RequestHistory history = new RequestHistory(metrics, false)) {
            for (int i = 0; i < 100; i++) {
                metrics.record(0, 0, 200, 2_000_000); // 2 ms
            }
            for (int i = 0; i < 5; i++) {
                metrics.record(0, 0, 503, 50_000);
            }
            metrics.record(1, 0, 500, 1_000); // not a client endpoint: not counted
            history.sample();
            history.sample(); // an interval without requests

            List<RequestHistory.Point> points = history.points();
            assertThat(points).hasSize(2);
            assertThat(points.get(0).perSecond()).isPositive();
            assertThat(points.get(0).p99Ms()).isBetween(1.0, 4.0);
            assertThat(points.get(0).errorsPerSecond() / points.get(0).perSecond())
                    .isCloseTo(5.0 / 105, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(points.get(1).perSecond()).isZero();
            assertThat(points.get(1).errorsPerSecond()).isZero();

            for (int i = 0; i < RequestHistory.POINTS + 5; i++) {
                history.sample();
            }
            assertThat(history.points()).hasSize(RequestHistory.POINTS);
        }
    }
}
