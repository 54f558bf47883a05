package io.ringbase.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v0/entities} with {@code Accept: application/x-ndjson}: one JSON line per entry with
 * base64 key and value, exact for keys and values holding {@code \n}, {@code "} or any byte; the
 * default stream unchanged without the header.
 */
@IntegrationTest
class NdjsonRangeTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String NDJSON = "application/x-ndjson";

    private ServerFixture http;

    @BeforeEach
    void start() {
        http = new ServerFixture(new InMemoryEngine());
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private void put(String key, byte[] value) throws Exception {
        assertThat(http.put("/v0/entity?id=" + ServerFixture.enc(key), value).statusCode())
                .isEqualTo(201);
    }

    private HttpResponse<String> range(String query, String accept) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(http.uri("/v0/entities?" + query)).timeout(Duration.ofSeconds(30));
        if (accept != null) {
            b.header("Accept", accept);
        }
        return http.client.send(b.GET().build(), HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    /** The lines of an NDJSON body, decoded: key (UTF-8) to value bytes, in order. */
    private static Map<String, byte[]> decode(String body) throws Exception {
        assertThat(body).endsWith("\n");
        Map<String, byte[]> entries = new LinkedHashMap<>();
        for (String line : body.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            JsonNode o = JSON.readTree(line);
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            assertThat(names).as(line).containsExactly("key", "value");
            entries.put(
                    new String(Base64.getDecoder().decode(o.path("key").textValue()), UTF_8),
                    Base64.getDecoder().decode(o.path("value").textValue()));
        }
        return entries;
    }

    @Test
    void keysAndValuesWithNewlinesComeBackExactly() throws Exception {
        byte[] binary = {0, '\n', '"', '\\', (byte) 0xff, '\r', '\n'};
        put("a\nb", "line one\nline two".getBytes(UTF_8));
        put("a", "\n".getBytes(UTF_8));
        put("a\n", new byte[0]);
        put("b \"quoted\"", binary);
        put("c", "plain".getBytes(UTF_8));

        HttpResponse<String> r = range("start=a&end=c", NDJSON);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue(NDJSON);
        Map<String, byte[]> entries = decode(r.body());
        assertThat(entries.keySet()).containsExactly("a", "a\n", "a\nb", "b \"quoted\"");
        assertThat(entries.get("a")).isEqualTo("\n".getBytes(UTF_8));
        assertThat(entries.get("a\n")).isEmpty();
        assertThat(entries.get("a\nb")).isEqualTo("line one\nline two".getBytes(UTF_8));
        assertThat(entries.get("b \"quoted\"")).isEqualTo(binary);
        assertThat(r.body().lines().count()).as("one line per entry").isEqualTo(4);
    }

    @Test
    void theLineIsExactlyKeyThenValueInBase64() throws Exception {
        put("k", "v!".getBytes(UTF_8));
        HttpResponse<String> r = range("start=k", NDJSON);
        assertThat(r.body()).isEqualTo("{\"key\":\"aw==\",\"value\":\"diE=\"}\n");
    }

    @Test
    void anEmptyRangeIsAnEmptyBody() throws Exception {
        put("k", "v".getBytes(UTF_8));
        HttpResponse<String> r = range("start=x", NDJSON);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue(NDJSON);
        assertThat(r.body()).isEmpty();
    }

    @Test
    void withoutTheHeaderOrWithOtherTypesTheStreamIsUnchanged() throws Exception {
        put("a", "x\ny".getBytes(UTF_8));
        for (String accept : new String[] {null, "*/*", "application/json", "application/x-ndjson;q=0"}) {
            HttpResponse<String> r = range("start=a", accept);
            assertThat(r.headers().firstValue("content-type")).as(accept).hasValue("application/octet-stream");
            assertThat(r.body()).as(accept).isEqualTo("a\nx\ny");
        }
    }

    @Test
    void theHeaderIsReadAsAListOfMediaRanges() {
        assertThat(RangeFormat.of("text/html, Application/X-NDJSON; charset=utf-8"))
                .isEqualTo(RangeFormat.NDJSON);
        assertThat(RangeFormat.of("application/x-ndjson;q=0.5, */*;q=0.1")).isEqualTo(RangeFormat.NDJSON);
        assertThat(RangeFormat.of("application/x-ndjson; q=0.000")).isEqualTo(RangeFormat.CHUNKS);
        assertThat(RangeFormat.of("application/x-ndjsonx")).isEqualTo(RangeFormat.CHUNKS);
        assertThat(RangeFormat.of("")).isEqualTo(RangeFormat.CHUNKS);
    }

    @Test
    void frameLengthIsWhatEncodeWrites() {
        for (int n = 0; n < 8; n++) {
            byte[] key = new byte[n];
            byte[] value = new byte[2 * n + 1];
            for (RangeFormat f : RangeFormat.values()) {
                io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer();
                f.encode(key, value, buf);
                assertThat(buf.readableBytes()).as("%s, key %d bytes", f, n).isEqualTo(f.frameLength(key, value));
                buf.release();
            }
        }
    }
}
