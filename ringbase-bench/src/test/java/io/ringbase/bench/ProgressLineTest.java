package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stable run's progress line: client requests read from a node's metrics, and no figures without them. */
class ProgressLineTest {

    @Test
    void clientRequestsAreTheEntityEndpointsByStatusClass() {
        String metrics = """
                # HELP ringbase_http_requests_total Requests answered.
                # TYPE ringbase_http_requests_total counter
                ringbase_http_requests_total{endpoint="entity",method="GET",status="200"} 1000.0
                ringbase_http_requests_total{endpoint="entity",method="GET",status="404"} 20.0
                ringbase_http_requests_total{endpoint="entity",method="PUT",status="201"} 300.0
                ringbase_http_requests_total{endpoint="entities",method="GET",status="200"} 5.0
                ringbase_http_requests_total{endpoint="entity",method="PUT",status="503"} 7.0
                ringbase_http_requests_total{endpoint="entity",method="PUT",status="other"} 9.0
                ringbase_http_requests_total{endpoint="metrics",method="GET",status="200"} 50.0
                ringbase_http_requests_total{endpoint="internal_batch",method="POST",status="200"} 60.0
                ringbase_http_request_duration_seconds_count{endpoint="entity",method="GET"} 1020.0
                """;
        assertThat(ProgressLine.clientRequests(metrics)).containsExactly(1305, 20, 7);
    }

    @Test
    void aNodeWithoutMetricsGetsTheElapsedTimeOnly() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // port 9 (discard) on loopback: nothing listens, the scrape fails at once
        ProgressLine line = new ProgressLine(List.of(URI.create("http://127.0.0.1:9")), 60,
                new PrintStream(out, true, StandardCharsets.UTF_8));
        line.tick(1);
        line.tick(2);
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("bench: stable run 1/60 s", "bench: stable run 2/60 s");
    }
}
