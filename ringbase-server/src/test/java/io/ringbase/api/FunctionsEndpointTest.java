package io.ringbase.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.functions.FunctionLimits;
import io.ringbase.functions.ProcessOutput;
import io.ringbase.functions.TestModules;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code /v0/functions/} and {@code /v0/process} over real HTTP on one node (docs/functions.md). */
@IntegrationTest
@Timeout(60)
class FunctionsEndpointTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataDir;

    private LsmEngine engine;
    private ServerFixture http;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        engine = LsmEngine.open(LsmOptions.defaults(dataDir));
        http = new ServerFixture(engine);
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        http.close();
        engine.close();
    }

    private void upload(String name) throws Exception {
        HttpResponse<byte[]> r = http.put("/v0/functions/" + name, TestModules.wasm(name));
        assertThat(r.statusCode()).as(new String(r.body(), UTF_8)).isEqualTo(201);
    }

    private HttpResponse<byte[]> process(String query) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(http.uri("/v0/process?" + query))
                .timeout(Duration.ofSeconds(30))
                .header("accept", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private void fill(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            String value = (i % 2 == 0 ? "apple-" : "berry-") + i;
            assertThat(http.put("/v0/entity?id=k" + (100 + i), value.getBytes(UTF_8))
                            .statusCode())
                    .isEqualTo(201);
        }
    }

    @Test
    void spreadIsCoordinatorOrReplicasAndNeverReplicasForAnUpdate() throws Exception {
        upload("identity");
        fill(2);
        HttpResponse<byte[]> bad = process("fn=identity&start=k&spread=everywhere");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(new String(bad.body(), UTF_8)).contains("spread must be coordinator or replicas");
        HttpResponse<byte[]> update = process("fn=identity&start=k&mode=update&spread=replicas");
        assertThat(update.statusCode()).isEqualTo(400);
        assertThat(new String(update.body(), UTF_8)).contains("update runs at the coordinator");
        // a node alone runs a job itself whichever is asked
        assertThat(process("fn=identity&start=k&spread=replicas").statusCode()).isEqualTo(200);
        assertThat(process("fn=identity&start=k&spread=coordinator").statusCode())
                .isEqualTo(200);
    }

    @Test
    void badModulesAreRefusedWithTheReason() throws Exception {
        HttpResponse<byte[]> noAlloc = http.put("/v0/functions/x", TestModules.wasm("noalloc"));
        assertThat(noAlloc.statusCode()).isEqualTo(400);
        assertThat(new String(noAlloc.body(), UTF_8)).contains("missing export 'alloc'");
        HttpResponse<byte[]> notWasm = http.put("/v0/functions/x", "hello".getBytes(UTF_8));
        assertThat(notWasm.statusCode()).isEqualTo(400);
        assertThat(new String(notWasm.body(), UTF_8)).contains("not a valid WebAssembly module");
        assertThat(http.put("/v0/functions/x", new byte[FunctionLimits.MAX_MODULE_BYTES + 1])
                        .statusCode())
                .isEqualTo(413);
        assertThat(http.put("/v0/functions/bad%20name", TestModules.wasm("identity"))
                        .statusCode())
                .isEqualTo(400);
        assertThat(http.get("/v0/functions/x").statusCode()).isEqualTo(404);
    }

    @Test
    void uploadGetDeleteRoundTrips() throws Exception {
        upload("identity");
        HttpResponse<byte[]> got = http.get("/v0/functions/identity");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(TestModules.wasm("identity"));
        assertThat(http.delete("/v0/functions/identity").statusCode()).isEqualTo(202);
        assertThat(http.get("/v0/functions/identity").statusCode()).isEqualTo(404);
        assertThat(process("fn=identity&start=a").statusCode()).isEqualTo(400);
    }

    @Test
    void systemKeysAreNeitherScannedNorAddressable() throws Exception {
        upload("identity");
        fill(2);
        HttpResponse<byte[]> scan = http.get("/v0/entities?start=%00");
        assertThat(new String(scan.body(), UTF_8)).doesNotContain("rb.fn").contains("k100");
        assertThat(http.get("/v0/entity?id=%00rb.fn/identity").statusCode()).isEqualTo(400);
        ProcessOutput out = ProcessOutput.parse(process("fn=identity&start=%00").body());
        assertThat(out.records()).hasSize(2);
    }

    @Test
    void mapFiltersAndEndsWithASummary() throws Exception {
        upload("filter");
        fill(20);
        HttpResponse<byte[]> r = process("fn=filter&start=k100&end=k110&mode=map");
        assertThat(r.statusCode()).isEqualTo(200);
        ProcessOutput out = ProcessOutput.parse(r.body());
        assertThat(out.records()).extracting(rec -> rec[0]).containsExactly("k100", "k102", "k104", "k106", "k108");
        assertThat(out.summary().get("state").asText()).isEqualTo("done");
        assertThat(out.summary().get("keysSeen").asLong()).isEqualTo(10);
        assertThat(out.summary().get("recordsOut").asLong()).isEqualTo(5);
        assertThat(out.summary().get("errors").asLong()).isZero();
    }

    @Test
    void reduceCountsBytes() throws Exception {
        upload("bytecount");
        fill(20);
        long expected = 0;
        for (int i = 0; i < 20; i++) {
            expected += ((i % 2 == 0 ? "apple-" : "berry-") + i).length();
        }
        HttpResponse<byte[]> r = process("fn=bytecount&start=k&mode=reduce");
        assertThat(r.statusCode()).as(new String(r.body(), UTF_8)).isEqualTo(200);
        JsonNode summary = JSON.readTree(r.body());
        byte[] result = Base64.getDecoder().decode(summary.get("result").asText());
        assertThat(ByteBuffer.wrap(result).order(ByteOrder.LITTLE_ENDIAN).getLong())
                .isEqualTo(expected);
        assertThat(summary.get("keysSeen").asLong()).isEqualTo(20);
    }

    @Test
    void updateRewritesInPlace() throws Exception {
        upload("upper");
        fill(6);
        http.put("/v0/entity?id=k200", "delete-me".getBytes(UTF_8));
        http.put("/v0/entity?id=k201", "ALREADY".getBytes(UTF_8));
        HttpResponse<byte[]> r = process("fn=upper&start=k&mode=update");
        assertThat(r.statusCode()).as(new String(r.body(), UTF_8)).isEqualTo(200);
        JsonNode summary = JSON.readTree(r.body());
        assertThat(summary.get("keysSeen").asLong()).isEqualTo(8);
        assertThat(summary.get("written").asLong()).isEqualTo(7); // 6 upper-cased, 1 deleted, 1 unchanged
        assertThat(new String(http.get("/v0/entity?id=k100").body(), UTF_8)).isEqualTo("APPLE-0");
        assertThat(http.get("/v0/entity?id=k200").statusCode()).isEqualTo(404);
        assertThat(new String(http.get("/v0/entity?id=k201").body(), UTF_8)).isEqualTo("ALREADY");
    }

    @Test
    void updateSeesTheBareValueOfATypedKeyAndKeepsItsType() throws Exception {
        upload("upper");
        assertThat(http.send("PUT", "/v0/entity?id=t1", "typed".getBytes(UTF_8), "Content-Type", "text/plain")
                        .statusCode())
                .isEqualTo(201);
        HttpResponse<byte[]> r = process("fn=upper&start=t&end=u&mode=update");
        assertThat(r.statusCode()).as(new String(r.body(), UTF_8)).isEqualTo(200);
        HttpResponse<byte[]> got = http.get("/v0/entity?id=t1");
        assertThat(new String(got.body(), UTF_8)).isEqualTo("TYPED"); // no prefix seen or upper-cased
        assertThat(got.headers().firstValue("content-type")).hasValue("text/plain");
    }

    @Test
    void trapsAreSkippedOrStopTheJobAsAsked() throws Exception {
        upload("trap");
        for (String key : List.of("aaa", "bad", "ccc")) {
            http.put("/v0/entity?id=" + key, "v".getBytes(UTF_8));
        }
        ProcessOutput skipped =
                ProcessOutput.parse(process("fn=trap&start=a&onError=skip").body());
        assertThat(skipped.records()).extracting(rec -> rec[0]).containsExactly("aaa", "ccc");
        assertThat(skipped.summary().get("errors").asLong()).isEqualTo(1);
        assertThat(skipped.summary().get("firstErrors").get(0).asText())
                .startsWith("function 'trap' failed on key 'bad': trap");
        ProcessOutput stopped =
                ProcessOutput.parse(process("fn=trap&start=a&onError=stop").body());
        assertThat(stopped.records()).extracting(rec -> rec[0]).containsExactly("aaa");
        assertThat(stopped.summary().get("state").asText()).isEqualTo("stopped");
        assertThat(stopped.summary().get("keysSeen").asLong()).isEqualTo(2);
    }

    @Test
    void anInfiniteLoopIsStoppedAndTheNodeKeepsServing() throws Exception {
        upload("spin");
        http.put("/v0/entity?id=spin", "v".getBytes(UTF_8));
        http.put("/v0/entity?id=spin2", "v".getBytes(UTF_8));
        long start = System.nanoTime();
        ProcessOutput out =
                ProcessOutput.parse(process("fn=spin&start=s&onError=skip").body());
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
        assertThat(out.summary().get("firstErrors").get(0).asText())
                .isEqualTo("function 'spin' failed on key 'spin': call took over 1000 ms");
        assertThat(out.records()).extracting(rec -> rec[0]).containsExactly("spin2");
        assertThat(http.get("/v0/entity?id=spin").statusCode()).isEqualTo(200);
    }

    @Test
    void badRequestsNameTheParameter() throws Exception {
        upload("identity");
        assertThat(new String(process("fn=identity&start=a&mode=fold").body(), UTF_8))
                .contains("mode must be");
        assertThat(new String(process("fn=identity&start=a&onError=maybe").body(), UTF_8))
                .contains("onError must be");
        assertThat(new String(process("fn=identity").body(), UTF_8)).contains("'start'");
        assertThat(new String(process("fn=identity&start=a&mode=update").body(), UTF_8))
                .contains("cannot run in mode update");
    }

    private long keysSeen(String job) throws Exception {
        HttpResponse<byte[]> r = http.get("/v0/process/" + job);
        return r.statusCode() == 200 ? JSON.readTree(r.body()).get("keysSeen").asLong() : -1;
    }

    @Test
    void aJobIsCancelledByDelete() throws Exception {
        upload("slow");
        fill(40);
        var response = client.sendAsync(
                HttpRequest.newBuilder(http.uri("/v0/process?fn=slow&start=k&id=slow1"))
                        .header("accept", "application/x-ndjson")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> keysSeen("slow1") >= 1);
        assertThat(http.delete("/v0/process/slow1").statusCode()).isEqualTo(202);
        ProcessOutput out = ProcessOutput.parse(
                response.get(30, java.util.concurrent.TimeUnit.SECONDS).body());
        assertThat(out.summary().get("state").asText()).isEqualTo("cancelled");
        assertThat(out.summary().get("keysSeen").asLong()).isLessThan(40);
        assertThat(http.get("/v0/process/slow1").statusCode()).isEqualTo(404);
        assertThat(http.delete("/v0/process/slow1").statusCode()).isEqualTo(404);
    }

    @Test
    void aJobEndsWhenItsClientGoesAway() throws Exception {
        upload("slow");
        fill(40);
        HttpResponse<java.io.InputStream> r = client.send(
                HttpRequest.newBuilder(http.uri("/v0/process?fn=slow&start=k&id=slow2"))
                        .header("accept", "application/x-ndjson")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> keysSeen("slow2") >= 1);
        r.body().close();
        client.shutdownNow(); // closes the connection
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> http.get("/v0/process/slow2").statusCode() == 404);
        assertThat(new String(http.get("/v0/process").body(), UTF_8)).doesNotContain("slow2");
    }

    @Test
    void theAssemblyScriptExamplesRunThroughTheApi() throws Exception {
        // examples/functions, built by its build.sh and copied here as as-<name>.wasm
        for (String name : List.of("as-filter", "as-wordcount", "as-upper")) {
            upload(name);
        }
        http.put("/v0/entity?id=log1", "INFO all good".getBytes(UTF_8));
        http.put("/v0/entity?id=log2", "ERROR disk full on /data".getBytes(UTF_8));
        http.put("/v0/entity?id=log3", "  three  words here ".getBytes(UTF_8));
        ProcessOutput errors =
                ProcessOutput.parse(process("fn=as-filter&start=log").body());
        assertThat(errors.records()).extracting(rec -> rec[0]).containsExactly("log2");
        JsonNode words =
                JSON.readTree(process("fn=as-wordcount&start=log&mode=reduce").body());
        byte[] count = Base64.getDecoder().decode(words.get("result").asText());
        assertThat(ByteBuffer.wrap(count).order(ByteOrder.LITTLE_ENDIAN).getLong())
                .isEqualTo(3 + 5 + 3);
        JsonNode updated =
                JSON.readTree(process("fn=as-upper&start=log&mode=update").body());
        assertThat(updated.get("written").asLong()).isEqualTo(3);
        assertThat(new String(http.get("/v0/entity?id=log1").body(), UTF_8)).isEqualTo("INFO ALL GOOD");
    }
}
