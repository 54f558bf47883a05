package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.node.Node;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NodeConfigs;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.TlsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code ringbase admin} against a node that speaks only TLS, on certificates the test makes. */
@IntegrationTest
@Timeout(60)
class AdminTlsTest {

    @TempDir
    Path dir;

    @Test
    void theNodesCaIsTrustedWithTlsCaAndAnyOtherIsRefusedWithAHint() throws Exception {
        TestCertificates ca = new TestCertificates("admin-test-ca");
        TestCertificates.write(ca.issue("node"), dir.resolve("node.pem"), dir.resolve("node.key"));
        Path caFile = ca.writeCa(dir.resolve("ca.pem"));
        Path otherCa = new TestCertificates("another-ca").writeCa(dir.resolve("other.pem"));
        TlsOptions tls = new TlsOptions(dir.resolve("node.pem"), dir.resolve("node.key"), null, 100);
        HttpServerConfig http =
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withTls(tls);
        try (Node node = Node.start(NodeConfigs.alone(LsmOptions.defaults(dir.resolve("data")), http))) {
            String url = "https://127.0.0.1:" + node.port();

            CommandRun trusted = AdminCommandTest.admin("status", "--url", url, "--tls-ca", caFile.toString());
            assertThat(trusted.exitCode()).as(trusted.err()).isZero();
            assertThat(trusted.out()).isNotBlank();

            CommandRun untrusted = AdminCommandTest.admin("status", "--url", url, "--timeout", "5s");
            assertThat(untrusted.exitCode()).isEqualTo(AdminClient.EXIT_UNREACHABLE);
            assertThat(untrusted.err()).contains("the TLS handshake failed").contains("give --tls-ca");

            CommandRun other =
                    AdminCommandTest.admin("status", "--url", url, "--tls-ca", otherCa.toString(), "--timeout", "5s");
            assertThat(other.exitCode()).isEqualTo(AdminClient.EXIT_UNREACHABLE);
            assertThat(other.err()).contains("is --tls-ca the CA that signed the node's certificate?");
        }
    }

    @Test
    void aTlsCaFileThatIsNoCertificateIsAUsageError() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
        CommandRun r = AdminCommandTest.admin("status", "--url", "https://127.0.0.1:1", "--tls-ca", notPem.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--tls-ca " + notPem);
        CommandRun missing = AdminCommandTest.admin(
                "status",
                "--url",
                "https://127.0.0.1:1",
                "--tls-ca",
                dir.resolve("x").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("no such file");
    }
}
