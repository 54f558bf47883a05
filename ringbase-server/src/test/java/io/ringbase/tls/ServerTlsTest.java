package io.ringbase.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.ringbase.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ServerTls}: loading the PEM files, and reloading them by polls the test drives. */
class ServerTlsTest {

    private static final long NEVER_MS = 3_600_000; // the poller's own schedule stays out of the way

    @TempDir
    Path dir;

    private final TestCertificates ca = new TestCertificates("test-ca");

    private TlsOptions options() {
        return new TlsOptions(dir.resolve("node.pem"), dir.resolve("node.key"), null, NEVER_MS);
    }

    @Test
    void renewedFilesAreLoadedForNewConnections() throws Exception {
        TestCertificates.write(ca.issue("first"), dir.resolve("node.pem"), dir.resolve("node.key"));
        try (ServerTls tls = ServerTls.open(options())) {
            assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=first");
            SslContext before = tls.get();
            tls.pollNow();
            assertThat(tls.get()).as("unchanged files are not reloaded").isSameAs(before);

            TestCertificates.write(ca.issue("renewed"), dir.resolve("node.pem"), dir.resolve("node.key"));
            tls.pollNow();
            assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=renewed");
            assertThat(tls.get()).isNotSameAs(before);
        }
    }

    @Test
    void aBadCertificateKeepsTheContextLoadedBefore() throws Exception {
        TestCertificates.write(ca.issue("first"), dir.resolve("node.pem"), dir.resolve("node.key"));
        try (ServerTls tls = ServerTls.open(options())) {
            SslContext before = tls.get();
            Files.writeString(dir.resolve("node.pem"), "not a certificate\n");
            tls.pollNow();
            assertThat(tls.get()).isSameAs(before);
            assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=first");
        }
    }

    @Test
    void aCertificateSeenBeforeItsKeyIsNotLoadedUntilTheKeyComes() throws Exception {
        TestCertificates.write(ca.issue("first"), dir.resolve("node.pem"), dir.resolve("node.key"));
        try (ServerTls tls = ServerTls.open(options())) {
            TestCertificates.Issued renewed = ca.issue("renewed");
            TestCertificates.write(renewed, dir.resolve("node.pem"), dir.resolve("new.key"));
            tls.pollNow(); // the new certificate with the old key
            assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=first");

            Files.move(
                    dir.resolve("new.key"), dir.resolve("node.key"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            tls.pollNow();
            assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=renewed");
        }
    }

    @Test
    void aKeyOfAnotherCertificateIsRefusedAtOpen() throws Exception {
        TestCertificates.write(ca.issue("first"), dir.resolve("node.pem"), dir.resolve("other.key"));
        TestCertificates.write(ca.issue("second"), dir.resolve("second.pem"), dir.resolve("node.key"));
        assertThatThrownBy(() -> ServerTls.open(options()))
                .isInstanceOf(TlsException.class)
                .hasMessageContaining("the key does not belong to the certificate");
    }

    @Test
    void aMissingFileIsNamed() {
        assertThatThrownBy(() -> ServerTls.open(options()))
                .isInstanceOf(TlsException.class)
                .hasMessage("TLS certificate " + dir.resolve("node.pem") + " cannot be read: no such file");
    }

    @Test
    void aKeyThatIsNotPkcs8SaysHowToConvertIt() throws Exception {
        TestCertificates.write(ca.issue("first"), dir.resolve("node.pem"), dir.resolve("node.key"));
        Files.writeString(
                dir.resolve("node.key"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> ServerTls.open(options()))
                .isInstanceOf(TlsException.class)
                .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }
}
