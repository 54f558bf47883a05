package io.ringbase.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.functions.ProcessOutput;
import io.ringbase.functions.TestModules;
import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs distributed over the replicas of a 3-node cluster (replication factor 3, docs/functions.md, "How a
 * job is distributed"): each node runs its share, and every key of the range is processed exactly once,
 * checked against the model of what was written, also when a node is stopped while every share still runs
 * (the paced function makes each key cost a few ms, so a job lasts seconds; the node is stopped once the
 * coordinator has counted a quarter of the keys).
 */
@IntegrationTest
@Timeout(300)
class DistributedProcessIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 2000;
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final Pattern SHARE_CALLS =
            Pattern.compile("ringbase_http_requests_total\\{endpoint=\"internal_process_share\"[^}]*} ([0-9.]+)");

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newHttpClient();

    private Map<String, String> load(LocalCluster c) throws Exception {
        for (String fn : List.of("identity", "bytecount", "pace")) {
            HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create(c.url(0) + "/v0/functions/" + fn))
                            .PUT(HttpRequest.BodyPublishers.ofByteArray(TestModules.wasm(fn)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        }
        Map<String, String> model = new TreeMap<>();
        String pad = "x".repeat(500);
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("key%05d", i);
            String value = "v" + i + pad;
            assertThat(c.put(i % 3, key, value).status()).isEqualTo(201);
            model.put(key, value);
        }
        assertThat(c.delete(1, "key00007").status()).isLessThan(300); // a tombstone is no key
        model.remove("key00007");
        assertThat(c.put(2, "keyz", "beyond the range").status()).isEqualTo(201);
        return model;
    }

    @Test
    void mapAndReduceRunOnEveryReplicaAndMatchTheModel() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3);
                client) {
            Map<String, String> model = load(c);

            ProcessOutput map = ProcessOutput.parse(client.send(
                            HttpRequest.newBuilder(URI.create(c.url(1)
                                            + "/v0/process?fn=identity&start=key&end=keyz&mode=map&spread=replicas"))
                                    .header("accept", "application/x-ndjson")
                                    .POST(HttpRequest.BodyPublishers.noBody())
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray())
                    .body());
            Map<String, String> out = new HashMap<>();
            for (String[] rec : map.records()) {
                assertThat(out.put(rec[0], rec[1]))
                        .as("key %s emitted twice", rec[0])
                        .isNull();
            }
            assertThat(out).isEqualTo(model);
            assertThat(map.summary().get("state").asText()).isEqualTo("done");
            assertThat(map.summary().get("keysSeen").asLong()).isEqualTo(model.size());

            HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create(c.url(0)
                                    + "/v0/process?fn=bytecount&start=key&end=keyz&mode=reduce&spread=replicas"))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode reduce = JSON.readTree(r.body());
            assertThat(result(reduce))
                    .isEqualTo(model.values().stream().mapToLong(String::length).sum());
            assertThat(reduce.get("keysSeen").asLong()).isEqualTo(model.size());

            // every node ran pages of a share: node 0 was asked by node 1, nodes 1 and 2 by node 0
            for (int i = 0; i < 3; i++) {
                assertThat(shareCalls(c, i)).as("share pages node %d ran", i).isPositive();
            }
        }
    }

    @Test
    void aNodeStoppedMidJobHandsItsShareOnAndEveryKeyIsProcessedOnce() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3);
                client) {
            Map<String, String> model = load(c);

            JsonNode reduce = JSON.readTree(
                    runStoppingMidway(c, 2, "fn=pace&start=key&end=keyz&mode=reduce&spread=replicas&id=r1"));
            assertThat(reduce.get("state").asText()).isEqualTo("done");
            assertThat(result(reduce)).as("keys counted").isEqualTo(model.size());
            assertThat(reduce.get("keysSeen").asLong()).isEqualTo(model.size());
            assertThat(reduce.get("resumed").asLong())
                    .as("node 2's share handed on")
                    .isPositive();

            c.start(2);
            c.awaitAllUp(DEADLINE);

            ProcessOutput map = ProcessOutput.parse(
                    runStoppingMidway(c, 1, "fn=pace&start=key&end=keyz&mode=map&spread=replicas&id=m1")
                            .getBytes(UTF_8));
            Map<String, Integer> seen = new HashMap<>();
            for (String[] rec : map.records()) {
                seen.merge(rec[0], 1, Integer::sum);
            }
            assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(model.keySet());
            assertThat(seen.values()).as("every key emitted once").allMatch(n -> n == 1);
            assertThat(map.summary().get("state").asText()).isEqualTo("done");
            assertThat(map.summary().get("keysSeen").asLong()).isEqualTo(model.size());
            assertThat(map.summary().get("resumed").asLong()).isPositive();
        }
    }

    /** Runs a job through node 0 and stops node {@code victim} once the coordinator counted a quarter of it. */
    private String runStoppingMidway(LocalCluster c, int victim, String query) throws Exception {
        String id = query.substring(query.indexOf("id=") + 3);
        CompletableFuture<HttpResponse<String>> job = client.sendAsync(
                HttpRequest.newBuilder(URI.create(c.url(0) + "/v0/process?" + query))
                        .header("accept", "application/x-ndjson")
                        .timeout(Duration.ofMinutes(3))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        LocalCluster.await(DEADLINE, "job " + id + " a quarter through", () -> {
            LocalCluster.Reply r = c.send(0, "GET", "/v0/process/" + id, null);
            try {
                return r.status() == 200
                        && JSON.readTree(r.body()).get("keysSeen").asLong() >= KEYS / 4;
            } catch (java.io.IOException e) {
                return false;
            }
        });
        LocalCluster.Reply progress = c.send(0, "GET", "/v0/process/" + id, null);
        assertThat(progress.status())
                .as("the job still runs when node %d stops", victim)
                .isEqualTo(200);
        assertThat(JSON.readTree(progress.body()).get("keysSeen").asLong()).isLessThan(KEYS * 3 / 4);
        c.stop(victim);
        HttpResponse<String> r = job.get(180, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    private static long result(JsonNode summary) {
        byte[] result = Base64.getDecoder().decode(summary.get("result").asText());
        return ByteBuffer.wrap(result).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static double shareCalls(LocalCluster c, int node) {
        Matcher m = SHARE_CALLS.matcher(c.send(node, "GET", "/metrics", null).body());
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }
}
