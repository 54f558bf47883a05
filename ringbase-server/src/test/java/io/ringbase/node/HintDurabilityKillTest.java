package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write acknowledged while one of its replicas was down is acknowledged only once that
 * replica's hint is durable. A 2-node cluster with node 1 never started takes {@value #WRITES} writes
 * ({@code ack=1&from=2}) through node 0, which is SIGKILLed right after the last acknowledgement; after
 * node 0 restarts and node 1 starts, the hints are delivered, and node 1 alone (node 0 killed again)
 * must hold every acknowledged write.
 */
@IntegrationTest
// three node starts (30 s each at most) and up to 30 s for the hints
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HintDurabilityKillTest {

    static final int WRITES = 200;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void hintsOfAcknowledgedWritesSurviveTheCoordinatorsSigkill() throws Exception {
        List<String> urls = new ArrayList<>();
        for (int port : io.ringbase.cluster.LocalCluster.freePorts(2)) {
            urls.add("http://127.0.0.1:" + port);
        }
        NodeProcess n0 = NodeProcess.startClusterNode(tmp.resolve("node-0"), tmp, urls, 0);
        NodeProcess n1 = null;
        try {
            NodeClient c0 = new NodeClient(n0);
            List<String> acked = new ArrayList<>();
            for (int i = 0; i < WRITES; i++) {
                String key = "k" + i;
                if (put(c0, key, "v" + i) == 201) {
                    acked.add(key);
                }
            }
            n0.sigkill(); // at once after the last 201: queued hints not yet stored would be lost
            assertThat(acked).hasSize(WRITES);

            n0 = NodeProcess.startClusterNode(tmp.resolve("node-0"), tmp, urls, 0);
            n1 = NodeProcess.startClusterNode(tmp.resolve("node-1"), tmp, urls, 1);
            NodeClient status0 = new NodeClient(n0);
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> status(status0).contains("\"pending\":0,"));
            assertThat(status(status0)).as("hints delivered").contains("\"pending\":0,");
            n0.sigkill();

            NodeClient c1 = new NodeClient(n1);
            List<String> missing = new ArrayList<>();
            for (int i = 0; i < WRITES; i++) {
                NodeClient.Answer a = get(c1, "k" + i);
                if (a.status() != 200 || !new String(a.body(), StandardCharsets.UTF_8).equals("v" + i)) {
                    missing.add("k" + i + " (" + a.status() + ")");
                }
            }
            assertThat(missing).as("acknowledged writes node 1 never got").isEmpty();
        } finally {
            n0.close();
            if (n1 != null) {
                n1.close();
            }
        }
    }

    private static int put(NodeClient c, String key, String value) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(c.entity(key) + "&ack=1&from=2"))
                .timeout(NodeClient.REQUEST_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.ofString(value))
                .build();
        return c.http().send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static NodeClient.Answer get(NodeClient c, String key) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(c.entity(key) + "&ack=1&from=2"))
                .timeout(NodeClient.REQUEST_TIMEOUT)
                .GET()
                .build();
        HttpResponse<byte[]> response = c.http().send(r, HttpResponse.BodyHandlers.ofByteArray());
        return new NodeClient.Answer(response.statusCode(), response.body());
    }

    private static String status(NodeClient c) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(
                        URI.create(c.entity("x").toString().replaceFirst("/v0/entity.*", "/v0/status")))
                .timeout(NodeClient.REQUEST_TIMEOUT)
                .GET()
                .build();
        return c.http().send(r, HttpResponse.BodyHandlers.ofString()).body();
    }
}
