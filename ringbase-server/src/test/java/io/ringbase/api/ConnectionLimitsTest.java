package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.testing.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node protects itself from clients that hold connections: a request that does not arrive in full in
 * time (Slowloris) gets 408 and a closed connection, an idle keep-alive connection is closed, and past
 * the connection cap new connections are closed at once. Short limits here; the defaults are 30 s,
 * 120 s and 4096.
 */
@IntegrationTest
class ConnectionLimitsTest {

    private static HttpServerConfig limits(long requestTimeoutMs, long idleTimeoutMs, int maxConnections) {
        return HttpServerConfig.defaults(0)
                .withHost("127.0.0.1")
                .withConnectionLimits(requestTimeoutMs, idleTimeoutMs, maxConnections);
    }

    @Test
    void halfARequestIsAnswered408AndClosedAfterTheRequestTimeout() throws Exception {
        try (ServerFixture http = new ServerFixture(limits(500, 60_000, 100), new InMemoryEngine())) {
            for (String partial : new String[] {
                "GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n", // header section never ends
                "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345", // body never completes
                "GET /v0/enti"
            }) { // request line never ends
                try (RawHttp raw = new RawHttp(http.port)) {
                    long started = System.nanoTime();
                    raw.send(partial);
                    RawHttp.Response r = raw.read();
                    long tookMs = (System.nanoTime() - started) / 1_000_000;
                    assertThat(r.status()).as(partial).isEqualTo(408);
                    assertThat(raw.closedByServer()).isTrue();
                    assertThat(tookMs)
                            .as("answered after the timeout, not before")
                            .isGreaterThanOrEqualTo(450);
                }
            }
            // a request that trickles in byte by byte is closed too, although bytes keep coming
            try (RawHttp raw = new RawHttp(http.port)) {
                String slow = "GET /v0/entity?id=slow HTTP/1.1\r\nHost: x\r\n";
                int sent = 0;
                for (; sent < slow.length(); sent++) {
                    raw.send(slow.substring(sent, sent + 1));
                    Thread.sleep(50);
                    if (raw.socket.getInputStream().available() > 0) {
                        break;
                    }
                }
                assertThat(raw.read().status()).isEqualTo(408);
            }
            assertThat(http.get("/v0/entity?id=a").statusCode())
                    .as("the server goes on")
                    .isEqualTo(404);
        }
    }

    @Test
    void aWholeRequestIsNotTouchedByTheTimeoutOfAnEarlierPartOne() throws Exception {
        try (ServerFixture http = new ServerFixture(limits(700, 60_000, 100), new InMemoryEngine());
                RawHttp raw = new RawHttp(http.port)) {
            for (int i = 0; i < 5; i++) { // each arrives in two parts, 200 ms apart: within the limit
                raw.send("PUT /v0/entity?id=k" + i + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n");
                Thread.sleep(200);
                raw.send("\r\nv");
                assertThat(raw.read().status()).isEqualTo(201);
            }
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosed() throws Exception {
        try (ServerFixture http = new ServerFixture(limits(30_000, 400, 100), new InMemoryEngine());
                RawHttp raw = new RawHttp(http.port)) {
            long started = System.nanoTime(); // idle counts from the last byte the server read
            raw.send("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(404);
            assertThat(raw.closedByServer()).isTrue();
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(tookMs).isBetween(390L, 10_000L);
        }
    }

    @Test
    void pastTheCapNewConnectionsAreClosedAndOthersGoOn() throws Exception {
        try (ServerFixture http = new ServerFixture(limits(30_000, 60_000, 3), new InMemoryEngine())) {
            List<RawHttp> open = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    RawHttp raw = new RawHttp(http.port);
                    open.add(raw);
                    raw.send("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
                    assertThat(raw.read().status()).isEqualTo(404);
                }
                try (RawHttp fourth = new RawHttp(http.port)) {
                    assertThat(fourth.closedByServer())
                            .as("the fourth connection is closed at once")
                            .isTrue();
                }
                assertThat(http.server.openConnections()).isEqualTo(3);
                open.getFirst().send("GET /v0/entity?id=b HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(open.getFirst().read().status())
                        .as("open connections go on")
                        .isEqualTo(404);
                open.removeFirst().close();
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> http.server.openConnections() == 2);
                try (RawHttp again = new RawHttp(http.port)) {
                    again.send("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
                    assertThat(again.read().status())
                            .as("room again once one closed")
                            .isEqualTo(404);
                }
            } finally {
                for (RawHttp r : open) {
                    r.close();
                }
            }
        }
    }
}
