package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The stable run's progress line: elapsed seconds during the run, the node's client requests over the run (its
 * metrics read before and after, never during), and no figures without metrics.
 */
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
    void theNodeIsScrapedBeforeAndAfterTheRunOnlyAndTheSummaryIsTheDifference() throws IOException {
        AtomicInteger scrapes = new AtomicInteger();
        HttpServer node = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        node.createContext("/metrics", exchange -> {
            int n = scrapes.incrementAndGet();
            String body = "ringbase_http_requests_total{endpoint=\"entity\",method=\"GET\",status=\"200\"} "
                    + (n == 1 ? 100 : 72_100) + ".0\n"
                    + "ringbase_http_requests_total{endpoint=\"entity\",method=\"GET\",status=\"404\"} "
                    + (n == 1 ? 1 : 31) + ".0\n";
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        node.start();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ProgressLine line = new ProgressLine(List.of(URI.create("http://127.0.0.1:" + node.getAddress().getPort())),
                    3, new PrintStream(out, true, StandardCharsets.UTF_8));
            line.begin();
            line.tick(1);
            line.tick(2);
            line.tick(3);
            assertThat(scrapes).as("no scrape during the run").hasValue(1);
            line.end();
            assertThat(scrapes).hasValue(2);
            assertThat(out.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
                    "bench: stable run 1/3 s", "bench: stable run 2/3 s", "bench: stable run 3/3 s",
                    "bench: the nodes counted 72,030 client requests in the stable run (2xx/3xx 72,000, 4xx 30, 5xx 0)");
        } finally {
            node.stop(0);
        }
    }

    @Test
    void aNodeWithoutMetricsGetsTheElapsedTimeOnly() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // port 9 (discard) on loopback: nothing listens, the scrape fails at once
        ProgressLine line = new ProgressLine(List.of(URI.create("http://127.0.0.1:9")), 60,
                new PrintStream(out, true, StandardCharsets.UTF_8));
        line.begin();
        line.tick(1);
        line.tick(2);
        line.end();
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("bench: stable run 1/60 s", "bench: stable run 2/60 s");
    }
}
