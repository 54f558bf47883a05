package io.ringbase.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.cluster.replication.SpeculativeRetry;
import io.ringbase.storage.ContentType;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A content type written through one node of a cluster of 3 is read through the others, on every replica
 * as a typed entry (the internal API and the v2 frames carry the bit), after a hint's delivery too, and
 * through Paxos for a conditional PUT.
 */
@IntegrationTest
class ClusterContentTypeTest {

    private static final String TEXT = "text/plain; charset=utf-8";

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private HttpResponse<String> send(LocalCluster c, int via, String method, String path, String body, String... h)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(c.url(via) + path))
                .timeout(Duration.ofSeconds(20))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(body, UTF_8));
        if (h.length > 0) {
            b.headers(h);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    private void assertServed(LocalCluster c, int via, String key, String value, String type) throws Exception {
        HttpResponse<String> got = send(c, via, "GET", "/v0/entity?id=" + key, null);
        assertThat(got.statusCode())
                .as("GET %s via %d: %s", key, via, got.body())
                .isEqualTo(200);
        assertThat(got.headers().firstValue("content-type")).as("via %d", via).hasValue(type);
        assertThat(got.body()).as("via %d", via).isEqualTo(value);
    }

    private static void awaitTyped(LocalCluster c, int node, String key, String type) {
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    Entry e = c.stored(node, key);
                    return e != null && e.typed() && type.equals(e.contentType());
                });
    }

    @Test
    @Timeout(180)
    void aTypeWrittenThroughOneNodeIsServedByEveryNodeAndStoredTypedOnEveryReplica() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            c.awaitAllUp(Duration.ofSeconds(15));
            assertThat(send(c, 0, "PUT", "/v0/entity?id=k", "hé", "Content-Type", TEXT)
                            .statusCode())
                    .isEqualTo(201);
            for (int via = 0; via < 3; via++) {
                assertServed(c, via, "k", "hé", TEXT);
            }
            for (int node = 0; node < 3; node++) {
                awaitTyped(c, node, "k", TEXT);
                assertThat(ContentType.bare(c.stored(node, "k").value())).isEqualTo("hé".getBytes(UTF_8));
            }
            // a range through another node serves the bare value
            HttpResponse<String> range = send(c, 1, "GET", "/v0/entities?start=k&end=l", null);
            assertThat(range.body()).isEqualTo("k\nhé");
            // a conditional PUT goes through Paxos and keeps its type
            assertThat(send(
                                    c,
                                    2,
                                    "PUT",
                                    "/v0/entity?id=p",
                                    "{}",
                                    "Content-Type",
                                    "application/json",
                                    "If-None-Match",
                                    "*")
                            .statusCode())
                    .isEqualTo(201);
            for (int via = 0; via < 3; via++) {
                assertServed(c, via, "p", "{}", "application/json");
            }
            // a replica that missed the write gets it, typed, from a hint
            c.stop(2);
            assertThat(send(c, 0, "PUT", "/v0/entity?id=h", "hinted", "Content-Type", "image/png")
                            .statusCode())
                    .isEqualTo(201);
            c.start(2);
            awaitTyped(c, 2, "h", "image/png");
            assertServed(c, 2, "h", "hinted", "image/png");
        }
    }

    @Test
    @Timeout(180)
    void aReadRepairWritesTheTypedValueBackToAStaleReplica() throws Exception {
        // without hints, so that node 2 stays stale until a read that asks every replica repairs it
        try (LocalCluster c = new LocalCluster(
                tmp, 3, cfg -> LocalCluster.withoutHints(cfg).withSpeculativeRetry(SpeculativeRetry.ALWAYS))) {
            c.awaitAllUp(Duration.ofSeconds(15));
            c.stop(2);
            assertThat(send(c, 0, "PUT", "/v0/entity?id=r", "repaired", "Content-Type", TEXT)
                            .statusCode())
                    .isEqualTo(201);
            c.start(2);
            c.awaitAllUp(Duration.ofSeconds(15));
            assertThat(c.stored(2, "r"))
                    .as("precondition: node 2 missed the write")
                    .isNull();
            HttpResponse<String> got = send(c, 0, "GET", "/v0/entity?id=r&ack=3&from=3", null);
            assertThat(got.headers().firstValue("content-type")).hasValue(TEXT);
            awaitTyped(c, 2, "r", TEXT);
            assertThat(c.stored(2, "r")).isEqualTo(c.stored(0, "r"));
        }
    }
}
