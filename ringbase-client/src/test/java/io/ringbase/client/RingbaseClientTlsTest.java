package io.ringbase.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.node.Node;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NodeConfigs;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.TlsOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link RingbaseClient} over {@code https://} to a node with TLS, on certificates the test makes. */
@IntegrationTest
@Timeout(60)
class RingbaseClientTlsTest {

    @TempDir
    Path tmp;

    private final TestCertificates ca = new TestCertificates("test-ca");

    private Node start(Path caFile) throws Exception {
        TestCertificates.write(ca.issue("node"), tmp.resolve("node.pem"), tmp.resolve("node.key"));
        HttpServerConfig http = HttpServerConfig.defaults(0)
                .withHost("127.0.0.1")
                .withTls(new TlsOptions(tmp.resolve("node.pem"), tmp.resolve("node.key"), caFile, 1_000));
        return Node.start(NodeConfigs.alone(LsmOptions.defaults(tmp.resolve("data")), http));
    }

    @Test
    void trustedCaReachesAnHttpsNode() throws Exception {
        Path caFile = ca.writeCa(tmp.resolve("ca.pem"));
        try (Node node = start(null);
                RingbaseClient client = RingbaseClient.builder("https://127.0.0.1:" + node.port())
                        .trustedCa(caFile)
                        .build();
                RingbaseClient untrusting = RingbaseClient.builder("https://127.0.0.1:" + node.port())
                        .maxAttempts(1)
                        .requestTimeout(Duration.ofSeconds(5))
                        .build()) {
            client.put("k", "v".getBytes(StandardCharsets.UTF_8));
            assertThat(client.get("k")).hasValue("v".getBytes(StandardCharsets.UTF_8));
            // the JDK's default context does not trust the test CA
            assertThatThrownBy(() -> untrusting.get("k")).isInstanceOf(RingbaseException.class);
        }
    }

    @Test
    void sslContextPresentsAClientCertificateToANodeWithTlsCa() throws Exception {
        Path caFile = ca.writeCa(tmp.resolve("ca.pem"));
        try (Node node = start(caFile);
                RingbaseClient client = RingbaseClient.builder("https://127.0.0.1:" + node.port())
                        .sslContext(ca.clientContext(ca.issue("client")))
                        .build()) {
            client.put("k", "v".getBytes(StandardCharsets.UTF_8));
            assertThat(client.get("k")).hasValue("v".getBytes(StandardCharsets.UTF_8));
        }
    }
}
