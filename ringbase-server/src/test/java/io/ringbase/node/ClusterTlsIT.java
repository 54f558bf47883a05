package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.ringbase.api.HttpServerConfig;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.cluster.wire.WireClient;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.PeerCertificates;
import io.ringbase.tls.ServerTls;
import io.ringbase.tls.TlsOptions;
import io.ringbase.transport.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes whose {@code --cluster} URLs are {@code https://}, on certificates of one CA the test makes:
 * replication over mutual TLS (the HTTP internal API and the binary protocol), and the refusals a
 * connection without a node's certificate gets for node-to-node traffic while the public API still
 * serves it. One cluster for all the tests of the class, to keep the tier's time down.
 */
@IntegrationTest
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterTlsIT {

    /** The binary protocol's magic (docs/internal-protocol-v2.md, "Connection"). */
    private static final byte[] MAGIC = {(byte) 0x89, 'R', 'B', 'W', '\r', '\n', 0x1A, '\n'};

    private Path dir = Path.of(".");

    private final TestCertificates ca = new TestCertificates("cluster-ca");
    private final List<String> urls = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();

    @BeforeAll
    void startCluster(@TempDir Path root) throws IOException {
        dir = root;
        for (int port : LocalCluster.freePorts(3)) {
            urls.add("https://127.0.0.1:" + port);
        }
        ca.writeCa(dir.resolve("ca.pem"));
        for (int i = 0; i < urls.size(); i++) {
            nodes.add(Node.start(config(i)));
        }
        for (Node n : nodes) {
            LocalCluster.await(
                    Duration.ofSeconds(30),
                    "every node to be a full replica its peers know",
                    () -> n.membership().map(LocalMembership::isSettled).orElse(true));
        }
    }

    @AfterAll
    void stopCluster() throws IOException {
        for (Node n : nodes) {
            n.close();
        }
    }

    private NodeConfig config(int i) throws IOException {
        TestCertificates.write(ca.issue("node-" + i), dir.resolve(i + ".pem"), dir.resolve(i + ".key"));
        Topology t = Topology.parse(urls, urls.get(i));
        HttpServerConfig http = new HttpServerConfig(
                        "127.0.0.1", t.self().port(), 16 << 20, 8, 1024, HttpServerConfig.DEFAULT_IO_THREADS, true)
                .withTls(tlsOf(i));
        LsmOptions storage = LsmOptions.defaults(dir.resolve("node-" + i)).withTombstoneGraceMs(10L * 24 * 3600 * 1000);
        return new NodeConfig(http, storage, t, 5_000, null, HintOptions.defaults()); // no secret: TLS alone guards
    }

    private TlsOptions tlsOf(int i) {
        return new TlsOptions(dir.resolve(i + ".pem"), dir.resolve(i + ".key"), dir.resolve("ca.pem"), 100, true);
    }

    private static HttpClient client(SSLContext ssl) {
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static HttpResponse<String> send(HttpClient http, String url, String method, String body)
            throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .method(method, HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void writesReachEveryReplicaOverTls() throws Exception {
        try (HttpClient https = client(ca.clientContext())) {
            // ack=3: answered only once every replica has stored it, each reached over TLS
            assertThat(send(https, urls.get(0) + "/v0/entity?id=k1&ack=3", "PUT", "over-tls")
                            .statusCode())
                    .isEqualTo(201);
            for (Node n : nodes) {
                assertThat(n.engine().get("k1".getBytes(StandardCharsets.UTF_8)))
                        .as("stored on %s", n.url())
                        .isNotNull();
            }
            HttpResponse<String> get = send(https, urls.get(2) + "/v0/entity?id=k1&ack=3", "GET", "");
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo("over-tls");
            assertThat(nodes.get(1).url()).startsWith("https://");
        }
    }

    @Test
    void theStatusPageReachesItsPeersOverTls() throws Exception {
        try (HttpClient https = client(ca.clientContext())) {
            HttpResponse<String> page = send(https, urls.get(0) + "/", "GET", "");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body())
                    .contains(urls.get(1), urls.get(2))
                    .doesNotContain("no answer")
                    .doesNotContain("answered ");
        }
    }

    @Test
    void aNodeCertificateOpensTheBinaryProtocolOverTls() throws Exception {
        Node from = nodes.get(0);
        Topology t = from.config().topology();
        NodeId target = t.node(1);
        EventLoopGroup group = Transport.newEventLoopGroup(1, "test-wire");
        try (ServerTls tls = ServerTls.open(tlsOf(0));
                WireClient wire = new WireClient(
                        5_000,
                        RequestSigner.NONE,
                        group,
                        new WireClient.Identity(
                                from.config().clusterName(),
                                t.self().toString(),
                                Membership.of(from.config().clusterName(), t).digestHex()),
                        new PeerCallStats(TimeSource.SYSTEM),
                        tls.client())) {
            LocalCluster.await(Duration.ofSeconds(20), "a v2 connection over TLS", () -> {
                var _ = wire.ping(target); // opens the connection while none is ready
                return wire.connected(target);
            });
            assertThat(wire.ping(target)).isNotNull();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void withoutACertificateThePublicApiServesButInternalPathsAre403() throws Exception {
        try (HttpClient https = client(ca.clientContext())) {
            assertThat(send(https, urls.get(1) + "/v0/entity?id=public", "PUT", "v")
                            .statusCode())
                    .isEqualTo(201);
            assertThat(send(https, urls.get(1) + "/v0/entity?id=public", "GET", "")
                            .body())
                    .isEqualTo("v");
            for (String path : List.of("/internal/v0/entry?id=6b31", "/internal/v0/batch", "/internal/v0/other")) {
                HttpResponse<String> internal = send(https, urls.get(1) + path, "GET", "");
                assertThat(internal.statusCode()).as(path).isEqualTo(403);
                assertThat(internal.body()).as(path).contains(PeerCertificates.REFUSAL);
            }
        }
    }

    @Test
    void withoutACertificateTheBinaryProtocolIsRefusedInItsHandshake() throws Exception {
        int port = URI.create(urls.get(1)).getPort();
        try (SSLSocket tls = (SSLSocket) ca.clientContext().getSocketFactory().createSocket("127.0.0.1", port)) {
            tls.startHandshake();
            assertThat(answerTo(tls)).contains(PeerCertificates.REFUSAL);
        }
        try (Socket plain = new Socket("127.0.0.1", port)) { // and in plain on the TLS port
            assertThat(answerTo(plain)).contains("this port speaks TLS").contains(PeerCertificates.REFUSAL);
        }
    }

    @Test
    void aCertificateOfAnotherCaFailsTheHandshake() {
        TestCertificates.Issued stranger = new TestCertificates("other-ca").issue("stranger");
        try (HttpClient https = client(TestCertificates.clientContext(ca.ca(), stranger))) {
            assertThatThrownBy(() -> send(https, urls.get(0) + "/internal/v0/entry?id=6b31", "GET", ""))
                    .isInstanceOf(IOException.class);
        }
    }

    /** Writes the magic and reads what the node answers until it closes the connection. */
    private static String answerTo(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write(MAGIC);
        out.flush();
        InputStream in = socket.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
}
