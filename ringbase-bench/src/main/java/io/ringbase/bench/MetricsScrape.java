package io.ringbase.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** One read of a node's {@code GET /metrics} (Prometheus text), for what bench prints and waits on. */
final class MetricsScrape {

    private MetricsScrape() {}

    /**
     * The body of {@code node}'s {@code /metrics}, or empty if it did not answer 200 within
     * {@code timeoutMs} (no metrics, {@code --no-metrics}, unreachable, or the thread was interrupted,
     * whose flag is then set again).
     */
    static Optional<String> body(HttpClient http, URI node, long timeoutMs) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(node.resolve("/metrics"))
                            .timeout(Duration.ofMillis(timeoutMs))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(r.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
