package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A response to HEAD has no body (RFC 9110 §9.3.2, RFC 9112 §6.3), whatever its status: requests pipelined
 * after a HEAD must get their own responses, not the rest of the HEAD's.
 */
@IntegrationTest
class HeadRequestTest {

    @Test
    @Timeout(30)
    void everyResponseToHeadIsBodilessSoPipelinedResponsesStayInStep() throws Exception {
        HttpServerConfig config =
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withMaxBodyBytes(1024);
        try (ServerFixture http = new ServerFixture(config, new InMemoryEngine());
                RawHttp raw = new RawHttp(http.port)) {
            assertThat(http.put("/v0/entity?id=a", "value".getBytes(StandardCharsets.UTF_8))
                            .statusCode())
                    .isEqualTo(201);
            // what each HEAD is answered: the status a GET-only or GET/PUT/DELETE path gives any other method
            Map<String, Integer> statusByRequest = new LinkedHashMap<>();
            statusByRequest.put("HEAD /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /v0/entity?id=missing HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /v0/entities?start=a HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /ready HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /v0/status HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /internal/v0/entry?id=61 HTTP/1.1\r\nHost: x\r\n\r\n", 405);
            statusByRequest.put("HEAD /abracadabra HTTP/1.1\r\nHost: x\r\n\r\n", 400);
            statusByRequest.put("HEAD /health HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n", 417);
            int over = http.server.bodyLimit() + 1; // skipped by Content-Length: the connection goes on
            statusByRequest.put(
                    "HEAD /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: " + over + "\r\n\r\n"
                            + "b".repeat(over),
                    413);
            raw.send(String.join("", statusByRequest.keySet()) + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");

            for (Map.Entry<String, Integer> e : statusByRequest.entrySet()) {
                String request = e.getKey().substring(0, e.getKey().indexOf('\r'));
                RawHttp.Response r = raw.readHead();
                assertThat(r.status()).as(request).isEqualTo(e.getValue());
                assertThat(r.header("content-length"))
                        .as("%s: no body, so no Content-Length", request)
                        .isNull();
                assertThat(r.header("transfer-encoding")).as(request).isNull();
                assertThat(r.header("connection"))
                        .as("%s: the connection goes on", request)
                        .isNull();
            }
            RawHttp.Response last = raw.read();
            assertThat(last.status()).isEqualTo(200);
            assertThat(last.bodyText()).isEqualTo("ok\n");
        }
    }

    @Test
    @Timeout(30)
    void theHeaderFieldsOfTheResponseStay() throws Exception {
        try (ServerFixture http = new ServerFixture(new InMemoryEngine());
                RawHttp raw = new RawHttp(http.port)) {
            raw.send("HEAD /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response r = raw.readHead();
            assertThat(r.status()).isEqualTo(405);
            assertThat(r.header("allow")).isEqualTo("GET, PUT, DELETE");
            assertThat(r.header("content-type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(raw.read().bodyText()).isEqualTo("ok\n");
        }
    }
}
