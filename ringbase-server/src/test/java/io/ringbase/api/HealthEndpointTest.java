package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code /health} and {@code /ready} of a single node, with an engine that can and cannot take writes. */
@IntegrationTest
class HealthEndpointTest {

    @Test
    void healthAndReadyAre200WhileTheEngineTakesWrites() throws Exception {
        try (ServerFixture http = new ServerFixture(new InMemoryEngine())) {
            HttpResponse<byte[]> health = http.get("/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(new String(health.body(), StandardCharsets.UTF_8)).isEqualTo("ok\n");
            HttpResponse<byte[]> ready = http.get("/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(new String(ready.body(), StandardCharsets.UTF_8)).isEqualTo("ready\n");
        }
    }

    @Test
    void readyIs503WithTheEnginesReasonWhileHealthStays200() throws Exception {
        InMemoryEngine broken = new InMemoryEngine() {
            @Override
            public String unwritableReason() {
                return "WAL segment wal-7.log failed: No space left on device";
            }
        };
        try (ServerFixture http = new ServerFixture(broken)) {
            assertThat(http.get("/health").statusCode()).isEqualTo(200);
            HttpResponse<byte[]> ready = http.get("/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(new String(ready.body(), StandardCharsets.UTF_8))
                    .isEqualTo("not ready: WAL segment wal-7.log failed: No space left on device\n");
        }
    }

    @Test
    void probesTakeOnlyGet() throws Exception {
        try (ServerFixture http = new ServerFixture(new InMemoryEngine())) {
            HttpResponse<byte[]> post = http.send("POST", "/ready", new byte[0]);
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("allow")).hasValue("GET");
        }
    }
}
