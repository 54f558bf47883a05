package io.ringbase.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NodeConfigs;
import io.ringbase.testing.TcpSockets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@IntegrationTest
class TrainingLoadTest {

    @TempDir
    Path tmp;

    @Test
    void phasesFollowEachOtherByTheirShares() {
        assertThat(TrainingLoad.phaseAt(0, 100)).isEqualTo(TrainingLoad.Phase.GET_MISSING);
        assertThat(TrainingLoad.phaseAt(19, 100)).isEqualTo(TrainingLoad.Phase.GET_MISSING);
        assertThat(TrainingLoad.phaseAt(21, 100)).isEqualTo(TrainingLoad.Phase.PUT_NEW);
        assertThat(TrainingLoad.phaseAt(64, 100)).isEqualTo(TrainingLoad.Phase.PUT_NEW);
        assertThat(TrainingLoad.phaseAt(66, 100)).isEqualTo(TrainingLoad.Phase.GET_PRESENT);
        assertThat(TrainingLoad.phaseAt(84, 100)).isEqualTo(TrainingLoad.Phase.GET_PRESENT);
        assertThat(TrainingLoad.phaseAt(86, 100)).isEqualTo(TrainingLoad.Phase.MIXED);
        assertThat(TrainingLoad.phaseAt(99, 100)).isEqualTo(TrainingLoad.Phase.MIXED);
        assertThat(TrainingLoad.phaseAt(100, 100)).isNull();
    }

    @Test
    void keysGrowLongerAsTheRunGoesOn() {
        assertThat(TrainingLoad.key(3, 9)).isEqualTo("aot-3-9");
        assertThat(TrainingLoad.key(3, 10)).hasSize(TrainingLoad.key(3, 9).length() + 1);
    }

    /**
     * A real node with a 1 MiB memtable (so that it flushes) takes every phase, and every answer is the one
     * the load checks for: the run would throw otherwise. The keys of the PUT phase are there afterwards.
     */
    @Test
    void aRealNodeTakesEveryPhaseAndKeepsTheWrites() throws Exception {
        NodeConfig config =
                NodeConfigs.alone(LsmOptions.defaults(tmp.resolve("data")).withMemtableBytes(1 << 20));
        try (Node node = Node.start(config)) {
            TrainingLoad.Result result =
                    TrainingLoad.run(new InetSocketAddress("127.0.0.1", node.port()), Duration.ofSeconds(3), 4);
            assertThat(result.requests()).containsOnlyKeys(TrainingLoad.Phase.values());
            assertThat(result.requests().values()).allSatisfy(n -> assertThat(n).isPositive());
            assertThat(result.total())
                    .isEqualTo(result.requests().values().stream()
                            .mapToLong(n -> n)
                            .sum());

            HttpClient http = HttpClient.newHttpClient();
            // each thread's first key was written in the PUT phase; the mixed phase deletes a random few
            // of a thread's thousands of keys, so it may have deleted one of these, not all four
            int present = 0;
            for (int t = 0; t < 4; t++) {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + node.port() + "/v0/entity?id=" + TrainingLoad.key(t, 0)))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isIn(200, 404);
                present += r.statusCode() == 200 ? 1 : 0;
            }
            assertThat(present).as("first keys of the four threads still there").isPositive();
        }
    }

    /**
     * A training run closes its connections first, so their sockets stay in TIME_WAIT, each holding its
     * ephemeral port for a minute. The launcher's warm-up runs before the node binds its own port, which
     * can be one of those: the node must still be able to listen on it.
     */
    @Test
    void aNodeListensOnAPortATrainingConnectionLeftInTimeWait() throws Exception {
        int port;
        try (FakeHttpServer server = new FakeHttpServer(line -> line.startsWith("PUT")
                ? "HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n"
                : "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")) {
            assertThatThrownBy(() -> TrainingLoad.run(server.address(), Duration.ofSeconds(1), 1))
                    .hasMessageContaining("expected 200"); // the fake's 404 for a present key ends the run
            // connections to the server that this side closed first
            List<Integer> ports = TcpSockets.all().stream()
                    .filter(t -> t.state() == TcpSockets.TIME_WAIT
                            && t.remotePort() == server.address().getPort())
                    .map(TcpSockets.Socket::localPort)
                    .toList();
            assertThat(ports).as("local ports of the run's closed connections").isNotEmpty();
            port = ports.getFirst();
        }
        NodeConfig config = NodeConfigs.alone(
                LsmOptions.defaults(tmp.resolve("data")),
                HttpServerConfig.defaults(port).withHost("127.0.0.1"));
        try (Node node = Node.start(config)) {
            assertThat(node.port()).isEqualTo(port);
        }
    }

    @Test
    void anAnswerTheNodeShouldNotGiveFailsTheRunNamingRequestAndStatus() throws Exception {
        try (FakeHttpServer server =
                new FakeHttpServer(line -> "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\n\r\nboom")) {
            assertThatThrownBy(() -> TrainingLoad.run(server.address(), Duration.ofSeconds(2), 2))
                    .isInstanceOf(IOException.class)
                    .hasMessageMatching("GET /v0/entity\\?id=missing-\\d-0 was answered 500, expected 404: boom");
        }
    }

    @Test
    void aNodeThatGoesAwayFailsTheRunSayingWhen() throws Exception {
        FakeHttpServer server = new FakeHttpServer(line -> "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
        InetSocketAddress address = server.address();
        server.close();
        assertThatThrownBy(() -> TrainingLoad.run(address, Duration.ofSeconds(2), 1))
                .isInstanceOf(IOException.class)
                .hasMessageMatching("GET /v0/entity\\?id=missing-0-0 at \\d+ ms into the run: .*");
    }

    @Test
    void retriesA503UntilTheNodeTakesTheRequest() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        try (FakeHttpServer server = new FakeHttpServer(line -> calls.incrementAndGet() % 3 != 0
                ? "HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncontent-length: 0\r\n\r\n"
                : line.startsWith("PUT")
                        ? "HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n"
                        : "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")) {
            // a GET of a present key answered 404 fails the run, but only after the GET and PUT phases passed
            assertThatThrownBy(() -> TrainingLoad.run(server.address(), Duration.ofSeconds(2), 1))
                    .hasMessageMatching("GET /v0/entity\\?id=aot-0-\\d+ was answered 404, expected 200");
            assertThat(server.requestLines).anyMatch(l -> l.startsWith("PUT /v0/entity?id=aot-0-0 "));
        }
    }

    /**
     * Each thread opens a new connection every {@link TrainingLoad#RECONNECT_EVERY} requests, so that the
     * JIT's profile of the server's accept and close paths goes on through the run.
     */
    @Test
    void eachThreadReconnectsEveryFewHundredRequests() throws Exception {
        try (FakeHttpServer server = new FakeHttpServer(line -> line.startsWith("PUT")
                ? "HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n"
                : "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")) {
            // the GET_PRESENT phase fails on the fake's 404; the phases before it ran long enough
            assertThatThrownBy(() -> TrainingLoad.run(server.address(), Duration.ofSeconds(2), 2))
                    .hasMessageContaining("expected 200");
            int requests = server.requestLines.size();
            assertThat(requests).isGreaterThan(4 * TrainingLoad.RECONNECT_EVERY);
            // two threads, one connection each per RECONNECT_EVERY requests (and a last one of fewer)
            assertThat(server.connections.get())
                    .isGreaterThanOrEqualTo(requests / TrainingLoad.RECONNECT_EVERY)
                    .isLessThanOrEqualTo(requests / TrainingLoad.RECONNECT_EVERY + 2);
        }
    }

    @Test
    void refusesConnectionsAndDurationsOutOfRange() {
        InetSocketAddress nowhere = new InetSocketAddress("127.0.0.1", 1);
        assertThatThrownBy(() -> TrainingLoad.run(nowhere, Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connections must be 1-256");
        assertThatThrownBy(() -> TrainingLoad.run(nowhere, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duration must be positive");
    }
}
