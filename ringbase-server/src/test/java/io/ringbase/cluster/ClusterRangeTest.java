package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v0/entities} through any node returns the whole cluster's newest live data. */
@IntegrationTest
class ClusterRangeTest {

    @TempDir
    Path tmp;

    @Test
    void rangeAfterANodeMissedWritesAndDeletesIsTheClustersNewestLiveData() throws Exception {
        // without hints, so node 1 stays behind on what it missed (the local=true check below relies on it)
        try (LocalCluster c = new LocalCluster(tmp, 3, LocalCluster::withoutHints)) {
            for (int i = 0; i < 30; i++) {
                assertThat(c.put(i % 3, key(i), "old" + i + ";").status()).isEqualTo(201);
            }
            c.stop(1);
            for (int i = 0; i < 30; i += 3) {
                assertThat(c.put(0, key(i), "new" + i + ";").status()).isEqualTo(201); // node 1 misses these
            }
            assertThat(c.delete(2, key(1)).status()).isEqualTo(202);
            assertThat(c.put(2, key(1), "recreated;", "").status()).isEqualTo(201);
            assertThat(c.delete(0, key(2)).status()).isEqualTo(202);
            String extra = oneCopyKeyOffNode(c, 1); // from=1: its only replica must be a running node
            assertThat(c.put(0, extra, "x;", "&ack=1&from=1").status()).isEqualTo(201);
            c.start(1);
            List<String> expected = new ArrayList<>();
            expected.add(extra + "\nx;"); // '-' sorts before the digits
            for (int i = 0; i < 30; i++) {
                if (i == 2) {
                    continue;
                }
                String v = i == 1 ? "recreated" : i % 3 == 0 ? "new" + i : "old" + i;
                expected.add(key(i) + "\n" + v + ";");
            }
            for (int via = 0; via < 3; via++) {
                LocalCluster.Reply r = c.send(via, "GET", "/v0/entities?start=k", null);
                assertThat(r.status()).isEqualTo(200);
                assertThat(records(r.body())).as("range through node %d", via).containsExactlyElementsOf(expected);
            }
            // local=true: only what node 1 holds, so none of the writes it missed
            LocalCluster.Reply local = c.send(1, "GET", "/v0/entities?start=k&local=true", null);
            assertThat(local.status()).isEqualTo(200);
            assertThat(local.body()).contains("old0").doesNotContain("new0");
            assertThat(c.send(1, "GET", "/v0/entities?start=k&local=maybe", null)
                            .status())
                    .isEqualTo(400);
        }
    }

    @Test
    void rangeWithOneNodeDownStillCoversEveryQuorumWrite() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            for (int i = 0; i < 20; i++) {
                assertThat(c.put(0, key(i), "v" + i + ";").status()).isEqualTo(201);
            }
            c.stop(2);
            c.get(0, key(0)); // let the failure detector notice (a request to node 2 fails fast)
            c.put(0, key(0), "v0;");
            LocalCluster.Reply r = c.send(0, "GET", "/v0/entities?start=k", null);
            assertThat(r.status()).isEqualTo(200);
            assertThat(records(r.body())).hasSize(20);
        }
    }

    @Test
    void aClusterRangeAsNdjsonKeepsNewlinesInKeysAndValues() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
            Map<String, String> written = new java.util.TreeMap<>();
            for (int i = 0; i < 10; i++) {
                written.put("n\n" + i, "value\n" + i + "\n");
            }
            for (Map.Entry<String, String> e : written.entrySet()) {
                String key = java.net.URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8);
                assertThat(c.put(1, key, e.getValue()).status()).isEqualTo(201);
            }
            java.net.http.HttpResponse<String> r = client.send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(c.url(0) + "/v0/entities?start=n"))
                            .header("Accept", "application/x-ndjson")
                            .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type")).hasValue("application/x-ndjson");
            Map<String, String> read = new LinkedHashMap<>();
            ObjectMapper json = new ObjectMapper();
            for (String line : r.body().split("\n")) {
                JsonNode o = json.readTree(line);
                read.put(
                        new String(Base64.getDecoder().decode(o.path("key").textValue()), StandardCharsets.UTF_8),
                        new String(Base64.getDecoder().decode(o.path("value").textValue()), StandardCharsets.UTF_8));
            }
            assertThat(read).containsExactlyEntriesOf(written);
            client.close();
        }
    }

    /** A key {@code k-extra<n>} whose first replica (the only one for from=1) is not {@code node}. */
    private static String oneCopyKeyOffNode(LocalCluster c, int node) {
        for (int n = 0; ; n++) {
            String key = "k-extra" + n;
            if (c.node(0)
                            .coordinator()
                            .placement()
                            .current()
                            .replicas(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), 1)
                            .getFirst()
                            .index()
                    != node) {
                return key;
            }
        }
    }

    private static String key(int i) {
        return String.format("k%03d", i);
    }

    /** Chunks arrive concatenated; every value in this test ends with ';', which splits them again. */
    private static List<String> records(String body) {
        List<String> out = new ArrayList<>();
        for (String r : body.split(";")) {
            if (!r.isEmpty()) {
                out.add(r + ";");
            }
        }
        return out;
    }
}
