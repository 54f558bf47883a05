package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How requests are labelled by status: every status the node answers has its own label. */
class RequestMetricsTest {

    /** Every status the HTTP layer answers (docs/http-api.md; {@code io.ringbase.api.Responses}). */
    static final List<Integer> ANSWERED =
            List.of(200, 201, 202, 400, 401, 403, 404, 405, 408, 413, 417, 500, 503, 504, 507);

    @Test
    @Timeout(10)
    void everyStatusTheNodeAnswersIsCountedUnderItsOwnCode() {
        for (int status : ANSWERED) {
            RequestMetrics metrics = new RequestMetrics(List.of("entity"), List.of("entity"));
            metrics.record(0, 0, status, 1_000);
            assertThat(labelsCounted(metrics)).as("status %d", status).containsExactly(Integer.toString(status));
        }
    }

    @Test
    @Timeout(10)
    void aStatusTheNodeNeverAnswersIsCountedAsOther() {
        RequestMetrics metrics = new RequestMetrics(List.of("entity"), List.of("entity"));
        metrics.record(0, 0, 418, 1_000);
        assertThat(labelsCounted(metrics)).containsExactly("other");
    }

    private static List<String> labelsCounted(RequestMetrics metrics) {
        return java.util.stream.IntStream.rangeClosed(0, RequestMetrics.STATUSES.length)
                .filter(i -> metrics.requests(0, 0, i) > 0)
                .mapToObj(RequestMetrics::statusLabel)
                .toList();
    }
}
