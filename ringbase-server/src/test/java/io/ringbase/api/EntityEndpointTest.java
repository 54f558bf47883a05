package io.ringbase.api;

import static io.ringbase.api.ServerFixture.enc;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code /v0/entity} over real HTTP on loopback, on the real storage engine. */
@IntegrationTest
class EntityEndpointTest {

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

    @Test
    void putThenGetReturnsExactBytesThenDeleteGives404() throws Exception {
        assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(404);
        assertThat(http.put("/v0/entity?id=k", "hello".getBytes(UTF_8)).statusCode())
                .isEqualTo(201);

        HttpResponse<byte[]> got = http.get("/v0/entity?id=k");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo("hello".getBytes(UTF_8));
        assertThat(got.headers().firstValue("content-type")).hasValue("application/octet-stream");
        assertThat(got.headers().firstValueAsLong("content-length")).hasValue(5);

        assertThat(http.delete("/v0/entity?id=k").statusCode()).isEqualTo(202);
        assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(404);
    }

    @Test
    void deleteOfAbsentKeyIsAccepted() throws Exception {
        assertThat(http.delete("/v0/entity?id=never-written").statusCode()).isEqualTo(202);
        assertThat(engine.get("never-written".getBytes(UTF_8)).isTombstone()).isTrue();
    }

    @Test
    void laterPutOverwrites() throws Exception {
        http.put("/v0/entity?id=k", "one".getBytes(UTF_8));
        http.put("/v0/entity?id=k", "two".getBytes(UTF_8));
        assertThat(http.get("/v0/entity?id=k").body()).isEqualTo("two".getBytes(UTF_8));
    }

    @Test
    void emptyValueRoundTrips() throws Exception {
        assertThat(http.put("/v0/entity?id=empty", new byte[0]).statusCode()).isEqualTo(201);
        HttpResponse<byte[]> got = http.get("/v0/entity?id=empty");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEmpty();
    }

    @Test
    void keysWithReservedAndUnicodeCharactersRoundTrip() throws Exception {
        String[] keys = {"with space", "a+b", "a/b/c", "x&y=z", "q?r#s", "%", "été 😀 日本", "\t\n"};
        for (String key : keys) {
            byte[] value = ("value of " + key).getBytes(UTF_8);
            assertThat(http.put("/v0/entity?id=" + enc(key), value).statusCode())
                    .as(key)
                    .isEqualTo(201);
            assertThat(engine.get(key.getBytes(UTF_8))).as(key).isNotNull();
            assertThat(http.get("/v0/entity?id=" + enc(key)).body()).as(key).isEqualTo(value);
        }
    }

    @Test
    void percent2BIsAPlusAndPlusIsASpace() throws Exception {
        http.put("/v0/entity?id=a%2Bb", "plus".getBytes(UTF_8));
        http.put("/v0/entity?id=a+b", "space".getBytes(UTF_8));
        http.put("/v0/entity?id=c%20d", "space2".getBytes(UTF_8));
        assertThat(engine.get("a+b".getBytes(UTF_8)).value()).isEqualTo("plus".getBytes(UTF_8));
        assertThat(engine.get("a b".getBytes(UTF_8)).value()).isEqualTo("space".getBytes(UTF_8));
        assertThat(http.get("/v0/entity?id=c+d").body()).isEqualTo("space2".getBytes(UTF_8));
    }

    @Test
    void binaryValueWithAll256ByteValuesRoundTrips() throws Exception {
        byte[] value = new byte[512];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (255 - i % 256);
        }
        assertThat(http.put("/v0/entity?id=bin", value).statusCode()).isEqualTo(201);
        assertThat(http.get("/v0/entity?id=bin").body()).isEqualTo(value);
    }

    @Test
    void fourMebibyteValueRoundTrips() throws Exception {
        byte[] value = new byte[4 * 1024 * 1024];
        new Random(42).nextBytes(value);
        assertThat(http.put("/v0/entity?id=big", value).statusCode()).isEqualTo(201);
        HttpResponse<byte[]> got = http.get("/v0/entity?id=big");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(value);
    }

    @Test
    void keyOf64KibIsAcceptedAndOneByteMoreIsRejected() throws Exception {
        String max = "k".repeat(Entry.MAX_KEY_BYTES);
        assertThat(http.put("/v0/entity?id=" + max, "v".getBytes(UTF_8)).statusCode())
                .isEqualTo(201);
        assertThat(http.get("/v0/entity?id=" + max).statusCode()).isEqualTo(200);

        String over = max + "k";
        assertThat(http.put("/v0/entity?id=" + over, "v".getBytes(UTF_8)).statusCode())
                .isEqualTo(400);
        assertThat(http.get("/v0/entity?id=" + over).statusCode()).isEqualTo(400);
        assertThat(http.delete("/v0/entity?id=" + over).statusCode()).isEqualTo(400);
    }

    @Test
    void fullyPercentEncodedKeyOf64KibPlusOneIsRejectedByOurCheck() throws Exception {
        String over = "%41".repeat(Entry.MAX_KEY_BYTES + 1);
        HttpResponse<byte[]> r = http.get("/v0/entity?id=" + over);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(new String(r.body(), UTF_8)).contains("limit is " + Entry.MAX_KEY_BYTES);
    }

    @Test
    void keyLimitCountsUtf8Bytes() throws Exception {
        String twoByteChars = "é".repeat(Entry.MAX_KEY_BYTES / 2); // exactly 64 KiB of UTF-8
        assertThat(http.put("/v0/entity?id=" + enc(twoByteChars), new byte[1]).statusCode())
                .isEqualTo(201);
        assertThat(http.put("/v0/entity?id=" + enc(twoByteChars + "a"), new byte[1])
                        .statusCode())
                .isEqualTo(400);
    }

    @Test
    void missingOrEmptyIdIs400() throws Exception {
        for (String q :
                new String[] {"/v0/entity", "/v0/entity?", "/v0/entity?id=", "/v0/entity?id", "/v0/entity?x=1"}) {
            assertThat(http.get(q).statusCode()).as(q).isEqualTo(400);
            assertThat(http.put(q, new byte[1]).statusCode()).as(q).isEqualTo(400);
            assertThat(http.delete(q).statusCode()).as(q).isEqualTo(400);
        }
    }

    @Test
    void invalidEscapesAndInvalidUtf8Are400() throws Exception {
        // java.net.URI refuses malformed escapes, so these go over a raw socket, all on one connection
        try (RawHttp raw = new RawHttp(http.port)) {
            for (String id : new String[] {"%", "%4", "%GG", "%FF", "%C3%28", "%ED%A0%80", "a%2"}) {
                raw.send("GET /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n");
                RawHttp.Response r = raw.read();
                assertThat(r.status()).as(id).isEqualTo(400);
                assertThat(r.header("content-type")).startsWith("text/plain");
                assertThat(r.body()).isNotEmpty();
            }
        }
        assertThat(http.get("/v0/entity?id=%FF").statusCode()).isEqualTo(400);
    }

    @Test
    void duplicateIdIs400() throws Exception {
        assertThat(http.get("/v0/entity?id=a&id=b").statusCode()).isEqualTo(400);
    }

    @Test
    @Timeout(30)
    void unknownPathIs400WithTheReason() throws Exception {
        for (String p : new String[] {
            "/abracadabra",
            "/nope",
            "/v0",
            "/v0/entity/x?id=a",
            "/v1/entity?id=a",
            "/v0/Entity?id=a",
            "/v0/admin/nope",
            "/internal/v0/nope"
        }) {
            HttpResponse<byte[]> r = http.get(p);
            assertThat(r.statusCode()).as(p).isEqualTo(400);
            assertThat(new String(r.body(), UTF_8)).as(p).startsWith("unknown ").contains(" path ");
        }
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        HttpResponse<byte[]> post = http.send("POST", "/v0/entity?id=a", new byte[1]);
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).hasValue("GET, PUT, DELETE");

        HttpResponse<byte[]> put = http.put("/v0/entities?start=a", new byte[1]);
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(put.headers().firstValue("allow")).hasValue("GET");
        assertThat(http.delete("/v0/entities?start=a").statusCode()).isEqualTo(405);
    }

    @Test
    void ttlEntryIsReadableUntilItsExpiryThenGone() throws Exception {
        AtomicLong now = new AtomicLong(1_800_000_000_000L);
        http.close();
        http = new ServerFixture(HttpServerConfig.defaults(0).withHost("127.0.0.1"), engine, now::get);
        assertThat(http.put("/v0/entity?id=t&ttl=0.5", "v".getBytes(UTF_8)).statusCode())
                .isEqualTo(201);
        assertThat(engine.get("t".getBytes(UTF_8)).expiresAtMs()).isEqualTo(1_800_000_000_500L);

        now.set(1_800_000_000_499L); // the last millisecond it lives
        HttpResponse<byte[]> live = http.get("/v0/entity?id=t");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(new String(live.body(), UTF_8)).isEqualTo("v");

        now.set(1_800_000_000_500L); // expired from its expiry on
        assertThat(http.get("/v0/entity?id=t").statusCode()).isEqualTo(404);
        now.set(1_800_000_000_499L); // a clock set back shows it again: expiry is a read-time rule
        assertThat(http.get("/v0/entity?id=t").statusCode()).isEqualTo(200);
    }

    @Test
    void longTtlIsReadable() throws Exception {
        assertThat(http.put("/v0/entity?id=t&ttl=3600", "v".getBytes(UTF_8)).statusCode())
                .isEqualTo(201);
        assertThat(http.get("/v0/entity?id=t").statusCode()).isEqualTo(200);
    }

    @Test
    void badTtlIs400AndWritesNothing() throws Exception {
        String[] bad = {"", "0", "-1", "abc", "NaN", "Infinity", "-Infinity", "1e3", "0.0", "3155760001", "1%2C5"};
        for (String ttl : bad) {
            assertThat(http.put("/v0/entity?id=t&ttl=" + ttl, new byte[1]).statusCode())
                    .as(ttl)
                    .isEqualTo(400);
        }
        assertThat(engine.get("t".getBytes(UTF_8))).isNull();
    }

    @Test
    void bodyOverLimitIs413AndSmallerOnesWork() throws Exception {
        http.close();
        http = new ServerFixture(
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withMaxBodyBytes(1024), engine);
        assertThat(http.put("/v0/entity?id=a", new byte[1024]).statusCode()).isEqualTo(201);
        HttpResponse<byte[]> r = http.put("/v0/entity?id=b", new byte[1025]);
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(engine.get("b".getBytes(UTF_8))).isNull();
        assertThat(http.get("/v0/entity?id=a").statusCode()).isEqualTo(200);
    }

    @Test
    void chunkedBodyJustOverLimitIs413AndTheConnectionGoesOn() throws Exception {
        http.close();
        http = new ServerFixture(
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withMaxBodyBytes(1024), engine);
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("PUT /v0/entity?id=c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + "400\r\n"
                    + "a".repeat(1024) + "\r\n" + "1\r\nb\r\n0\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(413);
            raw.send("GET /v0/entity?id=c HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(404);
        }
    }

    @Test
    void chunkedBodyOverLimitIs413AndConnectionCloses() throws Exception {
        http.close();
        http = new ServerFixture(
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withMaxBodyBytes(1024), engine);
        try (RawHttp raw = new RawHttp(http.port)) {
            // Past what the server aggregates at all (the value limit plus room for an internal replica
            // write's key and header), the rest of the body cannot be skipped: 413, then close.
            int over = http.server.bodyLimit() + 1;
            raw.send("PUT /v0/entity?id=c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(over) + "\r\n" + "a".repeat(over) + "\r\n" + "0\r\n\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(raw.closedByServer()).isTrue();
        }
        assertThat(http.get("/v0/entity?id=c").statusCode()).isEqualTo(404);
    }

    @Test
    void keepAliveServesManyRequestsOnOneConnection() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            for (int i = 0; i < 3; i++) {
                raw.send("PUT /v0/entity?id=k" + i + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
                RawHttp.Response r = raw.read();
                assertThat(r.status()).isEqualTo(201);
                assertThat(r.header("content-length")).isEqualTo("0");
                assertThat(r.header("connection")).isNull();
            }
            raw.send("GET /v0/entity?id=k1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(raw.closedByServer()).isTrue();
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                batch.append("PUT /v0/entity?id=p HTTP/1.1\r\nHost: x\r\nContent-Length: ")
                        .append(Integer.toString(i).length())
                        .append("\r\n\r\n")
                        .append(i);
                batch.append("GET /v0/entity?id=p HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            batch.append("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
            raw.send(batch.toString());
            for (int i = 0; i < 20; i++) {
                assertThat(raw.read().status()).isEqualTo(201);
                RawHttp.Response got = raw.read();
                assertThat(got.status()).isEqualTo(200);
                assertThat(got.bodyText()).isEqualTo(Integer.toString(i));
            }
            assertThat(raw.read().status()).isEqualTo(400);
        }
    }

    @Test
    void http10ClosesUnlessKeepAliveAsked() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("GET /v0/entity?id=none HTTP/1.0\r\n\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.version()).isEqualTo("HTTP/1.0");
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("content-length")).isNotNull();
            assertThat(raw.closedByServer()).isTrue();
        }
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("GET /v0/entity?id=none HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("connection")).isEqualToIgnoringCase("keep-alive");
            raw.send("DELETE /v0/entity?id=none HTTP/1.0\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(202);
            assertThat(raw.closedByServer()).isTrue();
        }
    }

    @Test
    @Timeout(30)
    void http10ChunkedIs400AndClosesSoNothingSmuggledRuns() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("PUT /v0/entity?id=a HTTP/1.0\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
                    + "0\r\n\r\n"
                    + "PUT /v0/entity?id=smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nEVIL!");
            assertThat(raw.read().status()).isEqualTo(400);
            assertThat(raw.closedByServer()).isTrue();
        }
        assertThat(http.get("/v0/entity?id=a").statusCode()).isEqualTo(404);
        assertThat(http.get("/v0/entity?id=smuggled").statusCode()).isEqualTo(404);
    }

    @Test
    @Timeout(30)
    void http11WithoutHostOrWithTwoIs400() throws Exception {
        for (String request : new String[] {
            "GET /v0/entity?id=a HTTP/1.1\r\n\r\n", "GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"
        }) {
            try (RawHttp raw = new RawHttp(http.port)) {
                raw.send(request);
                RawHttp.Response r = raw.read();
                assertThat(r.status()).as(request).isEqualTo(400);
                assertThat(r.bodyText()).as(request).contains("Host");
            }
        }
    }

    @Test
    @Timeout(30)
    void absoluteFormTargetsAreServedOnEveryPath() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("PUT http://example.com/v0/entity?id=abs HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
            assertThat(raw.read().status()).isEqualTo(201);
            raw.send("GET HTTP://127.0.0.1:1/v0/entity?id=abs HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response got = raw.read();
            assertThat(got.status()).isEqualTo(200);
            assertThat(got.bodyText()).isEqualTo("v");
            raw.send("GET https://h/v0/entities?start=abs HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response range = raw.read();
            assertThat(range.status()).isEqualTo(200);
            assertThat(range.bodyText()).isEqualTo("abs\nv");
            for (String path : new String[] {"/health", "/internal/v0/ping", "/v0/admin/repair"}) {
                raw.send("GET http://h" + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(raw.read().status()).as(path).isEqualTo(200);
            }
            raw.send("DELETE http://h/v0/entity?id=abs HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(202);
        }
        assertThat(http.get("/v0/entity?id=abs").statusCode()).isEqualTo(404);
    }

    @Test
    void garbageRequestLineIs400AndServerKeepsServing() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("this is not http at all\r\n\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(raw.closedByServer()).isTrue();
        }
        assertThat(http.put("/v0/entity?id=after", new byte[] {1}).statusCode()).isEqualTo(201);
    }

    @Test
    void badHeaderIs400AndServerKeepsServing() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(400);
            assertThat(raw.closedByServer()).isTrue();
        }
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(400);
            assertThat(raw.closedByServer()).isTrue();
        }
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("\u0001\u0002\u0003 \u00ff\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(400);
        }
        assertThat(http.get("/v0/entity?id=a").statusCode()).isEqualTo(404);
    }
}
