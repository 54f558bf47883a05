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
import org.junit.jupiter.api.io.TempDir;

/**
 * Versions and conditional writes of {@code /v0/entity} on a node alone, over real HTTP: every GET, PUT
 * and DELETE answers the version as a strong {@code ETag}, on the inline path and the workers' alike;
 * {@code If-Match} and {@code If-None-Match: *} write only when they hold, else 412 with the current tag;
 * a malformed precondition is a 400 naming it.
 */
@IntegrationTest
class ConditionalWritesTest {

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

    private static String etag(HttpResponse<?> r) {
        return r.headers().firstValue("etag").orElseThrow(() -> new AssertionError("no ETag in " + r));
    }

    @Test
    void getPutAndDeleteAnswerTheVersionAsAStrongETag() throws Exception {
        HttpResponse<byte[]> put = http.put("/v0/entity?id=k", "one".getBytes(UTF_8));
        assertThat(put.statusCode()).isEqualTo(201);
        assertThat(etag(put)).matches("\"[0-9a-f]{16}\"");
        HttpResponse<byte[]> got = http.get("/v0/entity?id=k");
        assertThat(etag(got)).isEqualTo(etag(put));
        assertThat(engine.get("k".getBytes(UTF_8)).version()).isEqualTo(ETag.parse(etag(got)));
        HttpResponse<byte[]> deleted = http.delete("/v0/entity?id=k");
        assertThat(deleted.statusCode()).isEqualTo(202);
        assertThat(ETag.parse(etag(deleted))).isGreaterThan(ETag.parse(etag(put)));
        assertThat(http.get("/v0/entity?id=k").headers().firstValue("etag")).isEmpty();
    }

    @Test
    void ifMatchWritesOnlyOverTheVersionItNames() throws Exception {
        String v1 = etag(http.put("/v0/entity?id=k", "one".getBytes(UTF_8)));
        HttpResponse<byte[]> second = http.send("PUT", "/v0/entity?id=k", "two".getBytes(UTF_8), "If-Match", v1);
        assertThat(second.statusCode()).isEqualTo(201);
        String v2 = etag(second);
        assertThat(v2).isNotEqualTo(v1);

        HttpResponse<byte[]> stale = http.send("PUT", "/v0/entity?id=k", "three".getBytes(UTF_8), "If-Match", v1);
        assertThat(stale.statusCode()).isEqualTo(412);
        assertThat(etag(stale)).isEqualTo(v2);
        assertThat(http.get("/v0/entity?id=k").body()).isEqualTo("two".getBytes(UTF_8));

        HttpResponse<byte[]> staleDelete = http.send("DELETE", "/v0/entity?id=k", null, "If-Match", v1);
        assertThat(staleDelete.statusCode()).isEqualTo(412);
        HttpResponse<byte[]> delete = http.send("DELETE", "/v0/entity?id=k", null, "If-Match", v2);
        assertThat(delete.statusCode()).isEqualTo(202);
        assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(404);

        HttpResponse<byte[]> afterDelete = http.send("PUT", "/v0/entity?id=k", new byte[] {1}, "If-Match", v2);
        assertThat(afterDelete.statusCode()).isEqualTo(412); // a tombstone matches no version
        assertThat(afterDelete.headers().firstValue("etag")).isEmpty();
        assertThat(http.send("PUT", "/v0/entity?id=k", new byte[] {1}, "If-Match", "*")
                        .statusCode())
                .isEqualTo(412);
    }

    @Test
    void ifNoneMatchStarCreatesOnlyOnce() throws Exception {
        HttpResponse<byte[]> first = http.send("PUT", "/v0/entity?id=new", "a".getBytes(UTF_8), "If-None-Match", "*");
        assertThat(first.statusCode()).isEqualTo(201);
        HttpResponse<byte[]> second = http.send("PUT", "/v0/entity?id=new", "b".getBytes(UTF_8), "If-None-Match", "*");
        assertThat(second.statusCode()).isEqualTo(412);
        assertThat(etag(second)).isEqualTo(etag(first));
        assertThat(http.get("/v0/entity?id=new").body()).isEqualTo("a".getBytes(UTF_8));
    }

    @Test
    void malformedPreconditionsAre400() throws Exception {
        http.put("/v0/entity?id=k", "one".getBytes(UTF_8));
        HttpResponse<byte[]> weak =
                http.send("PUT", "/v0/entity?id=k", new byte[] {1}, "If-Match", "W/\"0000000000000001\"");
        assertThat(weak.statusCode()).isEqualTo(400);
        assertThat(new String(weak.body(), UTF_8)).contains("strong");
        HttpResponse<byte[]> notHex = http.send("PUT", "/v0/entity?id=k", new byte[] {1}, "If-Match", "\"xyz\"");
        assertThat(notHex.statusCode()).isEqualTo(400);
        assertThat(new String(notHex.body(), UTF_8)).contains("\"xyz\"");
        assertThat(http.send("PUT", "/v0/entity?id=k", new byte[] {1}, "If-None-Match", "\"0000000000000001\"")
                        .statusCode())
                .isEqualTo(400);
        assertThat(http.get("/v0/entity?id=k").body()).isEqualTo("one".getBytes(UTF_8));
    }
}
