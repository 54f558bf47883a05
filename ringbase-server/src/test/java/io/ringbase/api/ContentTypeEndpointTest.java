package io.ringbase.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PUT's {@code Content-Type} is stored with the value and served back on GET (docs/http-api.md), on a
 * node alone over real HTTP: the bare bytes come back, untyped values stay {@code application/octet-stream},
 * a bad header is a 400, and the type survives a restart (WAL replay), a flush and a compaction.
 */
@IntegrationTest
@Timeout(60)
class ContentTypeEndpointTest {

    private static final String TEXT = "text/plain; charset=utf-8";

    @TempDir
    Path dataDir;

    private LsmEngine engine;
    private ServerFixture http;

    @BeforeEach
    void start() throws Exception {
        engine = LsmEngine.open(LsmOptions.defaults(dataDir));
        http = new ServerFixture(engine);
    }

    @AfterEach
    void stop() throws Exception {
        http.close();
        engine.close();
    }

    private void restart() throws Exception {
        http.close();
        engine.close();
        start();
    }

    private HttpResponse<byte[]> putTyped(String key, String value, String type) throws Exception {
        return http.send("PUT", "/v0/entity?id=" + key, value.getBytes(UTF_8), "Content-Type", type);
    }

    private void assertTyped(String key, String value, String type) throws Exception {
        HttpResponse<byte[]> got = http.get("/v0/entity?id=" + key);
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.headers().firstValue("content-type")).hasValue(type);
        assertThat(new String(got.body(), UTF_8)).isEqualTo(value);
        assertThat(got.headers().firstValueAsLong("content-length")).hasValue(value.getBytes(UTF_8).length);
    }

    @Test
    void aTypedPutIsServedWithItsTypeAndItsBareBytes() throws Exception {
        HttpResponse<byte[]> put = putTyped("k", "héllo", TEXT);
        assertThat(put.statusCode()).isEqualTo(201);
        assertTyped("k", "héllo", TEXT);
        // the ETag stays the version
        assertThat(http.get("/v0/entity?id=k").headers().firstValue("etag"))
                .isEqualTo(put.headers().firstValue("etag"));
        // an untyped overwrite is untyped again
        http.put("/v0/entity?id=k", "plain".getBytes(UTF_8));
        assertTyped("k", "plain", "application/octet-stream");
    }

    @Test
    void untypedAndOctetStreamPutsStayOctetStream() throws Exception {
        http.put("/v0/entity?id=a", "1".getBytes(UTF_8));
        putTyped("b", "2", "application/octet-stream");
        assertTyped("a", "1", "application/octet-stream");
        assertTyped("b", "2", "application/octet-stream");
        assertThat(engine.get("b".getBytes(UTF_8)).typed()).isFalse();
    }

    @Test
    void aBadContentTypeIsRefusedWithOneLine() throws Exception {
        for (String bad : new String[] {"text", "text/plain/x", "a/" + "b".repeat(126), "te xt/plain"}) {
            HttpResponse<byte[]> r = putTyped("bad", "v", bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(new String(r.body(), UTF_8)).as(bad).contains("Content-Type");
        }
        assertThat(http.get("/v0/entity?id=bad").statusCode()).isEqualTo(404);
    }

    @Test
    void aConditionalTypedPutKeepsItsType() throws Exception {
        HttpResponse<byte[]> r = http.send(
                "PUT",
                "/v0/entity?id=c",
                "{}".getBytes(UTF_8),
                "Content-Type",
                "application/json",
                "If-None-Match",
                "*");
        assertThat(r.statusCode()).isEqualTo(201);
        assertTyped("c", "{}", "application/json");
    }

    @Test
    void rangeScansServeBareValues() throws Exception {
        putTyped("r1", "one", TEXT);
        http.put("/v0/entity?id=r2", "two".getBytes(UTF_8));
        HttpResponse<byte[]> got = http.get("/v0/entities?start=r1&end=r3");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(new String(got.body(), UTF_8)).isEqualTo("r1\none" + "r2\ntwo");
    }

    @Test
    void theTypeSurvivesARestartAFlushAndACompaction() throws Exception {
        putTyped("w", "in the wal", TEXT);
        restart(); // replayed from the WAL
        assertTyped("w", "in the wal", TEXT);
        putTyped("s", "in a table", "image/png");
        engine.flush();
        engine.compactAll();
        restart();
        assertTyped("w", "in the wal", TEXT);
        assertTyped("s", "in a table", "image/png");
    }
}
