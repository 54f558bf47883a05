package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NodeConfigs;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.TlsOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with {@code --tls-cert/--tls-key} (and {@code --tls-ca}) on certificates the test makes: https
 * requests, the one answer plain HTTP gets, client certificates, and a certificate replaced while it runs.
 */
@IntegrationTest
@Timeout(60)
class TlsNodeTest {

    @TempDir
    Path dir;

    private final TestCertificates ca = new TestCertificates("test-ca");

    private Node start(@Nullable Path caFile) throws IOException {
        TestCertificates.write(ca.issue("node"), dir.resolve("node.pem"), dir.resolve("node.key"));
        TlsOptions tls = new TlsOptions(dir.resolve("node.pem"), dir.resolve("node.key"), caFile, 100);
        HttpServerConfig http =
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withTls(tls);
        return Node.start(NodeConfigs.alone(LsmOptions.defaults(dir.resolve("data")), http));
    }

    private static HttpClient client(SSLContext ssl) {
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static HttpRequest.Builder request(Node node, String target) {
        return HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + node.port() + target))
                .timeout(Duration.ofSeconds(10));
    }

    @Test
    void httpsRoundTripsAndPlainHttpIsToldToUseTls() throws Exception {
        try (Node node = start(null);
                HttpClient https = client(ca.clientContext())) {
            assertThat(node.url()).startsWith("https://");
            HttpResponse<String> put = https.send(
                    request(node, "/v0/entity?id=k")
                            .PUT(HttpRequest.BodyPublishers.ofString("hello"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).isEqualTo(201);
            HttpResponse<String> get =
                    https.send(request(node, "/v0/entity?id=k").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo("hello");

            // plain HTTP: one 400 naming the scheme, then the node closes the connection (read to EOF)
            try (Socket plain = new Socket("127.0.0.1", node.port())) {
                plain.setSoTimeout(10_000);
                OutputStream out = plain.getOutputStream();
                out.write("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String answer = new String(plain.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(answer)
                        .startsWith("HTTP/1.1 400 Bad Request\r\n")
                        .contains("connection: close\r\n")
                        .endsWith("\r\n\r\nthis port speaks TLS: use https://\n");
            }
        }
    }

    @Test
    void withTlsCaOnlyClientsPresentingTheCasCertificateGetIn() throws Exception {
        Path caFile = ca.writeCa(dir.resolve("ca.pem"));
        TestCertificates stranger = new TestCertificates("other-ca");
        try (Node node = start(caFile);
                HttpClient noCertificate = client(ca.clientContext());
                HttpClient otherCa = client(ca.clientContext(stranger.issue("intruder")));
                HttpClient member = client(ca.clientContext(ca.issue("client")))) {
            HttpRequest health = request(node, "/health").GET().build();
            assertThatThrownBy(() -> noCertificate.send(health, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> otherCa.send(health, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);
            HttpResponse<String> ok = member.send(health, HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aReplacedCertificateIsPresentedToNewConnectionsWithoutARestart() throws Exception {
        try (Node node = start(null)) {
            assertThat(presented(node)).isEqualTo("CN=node");
            TestCertificates.write(ca.issue("renewed"), dir.resolve("node.pem"), dir.resolve("node.key"));
            await().atMost(Duration.ofSeconds(20)).until(() -> presented(node).equals("CN=renewed"));
        }
    }

    /** The subject of the certificate a new TLS connection to {@code node} is shown. */
    private String presented(Node node) throws IOException {
        try (SSLSocket s = (SSLSocket) ca.clientContext().getSocketFactory().createSocket("127.0.0.1", node.port())) {
            s.setSoTimeout(10_000);
            s.startHandshake();
            X509Certificate cert = (X509Certificate) s.getSession().getPeerCertificates()[0];
            return cert.getSubjectX500Principal().getName();
        }
    }
}
