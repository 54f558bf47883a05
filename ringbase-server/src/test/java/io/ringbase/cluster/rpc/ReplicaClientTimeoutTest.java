package io.ringbase.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.testing.IntegrationTest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-call deadlines: a repair call whose answer takes longer than the replica timeout (a Merkle tree
 * of a whole range at millions of keys) must not fail on that timeout.
 */
@IntegrationTest
class ReplicaClientTimeoutTest {

    HttpServer server;
    ReplicaClient client;
    NodeId node;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/internal/v0/", exchange -> {
            try {
                Thread.sleep(800); // a slow answer: longer than the client's 300 ms timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] answer = "slow".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        node = new NodeId(1, "127.0.0.1", server.getAddress().getPort());
        client = new ReplicaClient(ReplicaClient.ClientConfig.defaults(300), RequestSigner.NONE);
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    @Test
    void aCallWithItsOwnDeadlineOutlivesTheConfiguredTimeout() throws Exception {
        assertThatThrownBy(() -> client.send(node, HttpMethod.GET, "/internal/v0/repair/tree", new byte[0])
                        .get(5, TimeUnit.SECONDS))
                .as("the configured 300 ms")
                .hasCauseInstanceOf(ReplicaException.Timeout.class)
                .hasMessageContaining("300 ms");
        ReplicaClient.Response r = client.send(node, HttpMethod.GET, "/internal/v0/repair/tree", new byte[0], 5_000)
                .get(10, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("slow");
        assertThatThrownBy(() -> client.send(node, HttpMethod.GET, "/internal/v0/repair/tree", new byte[0], 100)
                        .get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ReplicaException.Timeout.class)
                .hasMessageContaining("100 ms");
    }
}
