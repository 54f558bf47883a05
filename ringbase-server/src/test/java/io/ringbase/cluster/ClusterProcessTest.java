package io.ringbase.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.functions.ProcessOutput;
import io.ringbase.functions.TestModules;
import io.ringbase.testing.IntegrationTest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server-side functions on a 3-node cluster (replication factor 3) with a node stopped while a job runs:
 * every key of the range is processed exactly once, checked against the model of what was written
 * (docs/functions.md, "How a job is distributed"). The stopped node's share is handed on from the last
 * page the coordinator received, and the other nodes' scans are reopened after the last key they processed.
 */
@IntegrationTest
@Timeout(180)
class ClusterProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 3000;
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void mapReduceAndUpdateProcessEveryKeyOnceWithANodeStoppedMidway() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3);
                client) {
            for (String fn : List.of("identity", "bytecount", "upper")) {
                HttpResponse<String> r = client.send(
                        HttpRequest.newBuilder(URI.create(c.url(0) + "/v0/functions/" + fn))
                                .PUT(HttpRequest.BodyPublishers.ofByteArray(TestModules.wasm(fn)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            }
            Map<String, String> model = new TreeMap<>();
            String pad = "x".repeat(1000);
            for (int i = 0; i < KEYS; i++) {
                String key = String.format("key%05d", i);
                String value = "v" + i + pad;
                assertThat(c.put(i % 3, key, value).status()).isEqualTo(201);
                model.put(key, value);
            }

            // map: streamed; node 2 stops once the client has read a tenth of the output
            HttpResponse<InputStream> stream = client.send(
                    HttpRequest.newBuilder(URI.create(c.url(0) + "/v0/process?fn=identity&start=key&mode=map"))
                            .header("accept", "application/x-ndjson")
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(stream.statusCode()).isEqualTo(200);
            StringBuilder body = new StringBuilder();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), UTF_8))) {
                int read = 0;
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    body.append(line).append('\n');
                    if (++read == KEYS / 10) {
                        c.stop(2);
                    }
                }
            }
            ProcessOutput map = ProcessOutput.parse(body.toString().getBytes(UTF_8));
            Map<String, Integer> seen = new HashMap<>();
            for (String[] rec : map.records()) {
                seen.merge(rec[0], 1, Integer::sum);
                assertThat(rec[1]).isEqualTo(model.get(rec[0]));
            }
            assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(model.keySet());
            assertThat(seen.values()).allMatch(n -> n == 1);
            assertThat(map.summary().get("state").asText()).isEqualTo("done");
            assertThat(map.summary().get("keysSeen").asLong()).isEqualTo(KEYS);
            assertThat(map.summary().get("resumed").asLong())
                    .as("the scan broke and was resumed")
                    .isPositive();

            c.start(2);
            c.awaitAllUp(DEADLINE);

            // reduce: node 1 stops once the job has seen a quarter of the keys
            JsonNode reduce = runStoppingMidway(c, 1, "fn=bytecount&start=key&mode=reduce&id=reduce1");
            long bytes = model.values().stream().mapToLong(v -> v.length()).sum();
            byte[] result = Base64.getDecoder().decode(reduce.get("result").asText());
            assertThat(ByteBuffer.wrap(result).order(ByteOrder.LITTLE_ENDIAN).getLong())
                    .isEqualTo(bytes);
            assertThat(reduce.get("keysSeen").asLong()).isEqualTo(KEYS);
            assertThat(reduce.get("recordsOut").asLong()).isEqualTo(KEYS);

            c.start(1);
            c.awaitAllUp(DEADLINE);

            // update: node 2 stops midway; every value upper-cased exactly once
            JsonNode update = runStoppingMidway(c, 2, "fn=upper&start=key&mode=update&id=update1");
            assertThat(update.get("keysSeen").asLong()).isEqualTo(KEYS);
            assertThat(update.get("written").asLong()).isEqualTo(KEYS);
            assertThat(update.get("errors").asLong()).isZero();
            Function<String, String> upper = v -> v.toUpperCase(java.util.Locale.ROOT);
            for (int i = 0; i < KEYS; i += 97) {
                String key = String.format("key%05d", i);
                assertThat(c.get(0, key).body()).isEqualTo(upper.apply(model.get(key)));
            }

            // the coordinator's metrics and status report count the three jobs
            String metrics = c.send(0, "GET", "/metrics", null).body();
            assertThat(metrics)
                    .containsPattern("ringbase_function_jobs_started_total 3(\\.0)?\n")
                    .containsPattern("ringbase_function_jobs_running 0(\\.0)?\n")
                    .containsPattern("ringbase_function_keys_processed_total 9000(\\.0)?\n");
            JsonNode status = JSON.readTree(c.send(0, "GET", "/v0/status", null).body());
            assertThat(status.get("functions").get("ended").asLong()).isEqualTo(3);
            assertThat(c.send(0, "GET", "/", null).body()).contains("<td class=\"jobs\">0</td>");
        }
    }

    /** Runs a reduce or update job through node 0 and stops node {@code victim} once it is a quarter through. */
    private JsonNode runStoppingMidway(LocalCluster c, int victim, String query) throws Exception {
        String id = query.substring(query.indexOf("id=") + 3);
        CompletableFuture<HttpResponse<String>> job = client.sendAsync(
                HttpRequest.newBuilder(URI.create(c.url(0) + "/v0/process?" + query))
                        .timeout(Duration.ofMinutes(2))
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
        c.stop(victim);
        HttpResponse<String> r = job.get(120, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode summary = JSON.readTree(r.body());
        assertThat(summary.get("state").asText()).isEqualTo("done");
        List<String> errors = new ArrayList<>();
        summary.get("firstErrors").forEach(e -> errors.add(e.asText()));
        assertThat(errors).isEmpty();
        return summary;
    }
}
