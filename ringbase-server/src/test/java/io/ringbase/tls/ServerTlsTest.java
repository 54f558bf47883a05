package io.ringbase.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.ringbase.testing.TestCertificates;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ServerTls}: loading the PEM files, and reloading them by polls the test drives. */
@org.junit.jupiter.api.Timeout(30)
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
    void theClientSideOfNodeToNodeCallsPresentsTheReloadedCertificate() throws Exception {
        TestCertificates.write(ca.issue("first"), dir.resolve("node.pem"), dir.resolve("node.key"));
        Path caFile = ca.writeCa(dir.resolve("ca.pem"));
        TlsOptions options = new TlsOptions(dir.resolve("node.pem"), dir.resolve("node.key"), caFile, NEVER_MS, true);
        try (ServerTls tls = ServerTls.open(options)) {
            var client = java.util.Objects.requireNonNull(tls.client());
            assertThat(presentedBy(client.get(), tls.get())).isEqualTo("CN=first");

            TestCertificates.write(ca.issue("renewed"), dir.resolve("node.pem"), dir.resolve("node.key"));
            tls.pollNow();
            assertThat(presentedBy(client.get(), tls.get()))
                    .as("a connection opened after the reload")
                    .isEqualTo("CN=renewed");
        }
        assertThat(ServerTls.open(options()).client())
                .as("no peers over TLS: no client side")
                .isNull();
    }

    @Test
    void theClientSideChecksThePeersHostName() throws Exception {
        TestCertificates.write(ca.issue("node"), dir.resolve("node.pem"), dir.resolve("node.key"));
        Path caFile = ca.writeCa(dir.resolve("ca.pem"));
        TlsOptions options = new TlsOptions(dir.resolve("node.pem"), dir.resolve("node.key"), caFile, NEVER_MS, true);
        try (ServerTls tls = ServerTls.open(options)) {
            SslContext client = java.util.Objects.requireNonNull(tls.client()).get();
            assertThat(presentedBy(client, tls.get(), "127.0.0.1")).isEqualTo("CN=node");
            // the certificate names localhost and 127.0.0.1 only
            assertThatThrownBy(() -> presentedBy(client, tls.get(), "rb2.example"))
                    .isInstanceOf(javax.net.ssl.SSLException.class);
        }
    }

    /** The subject of the certificate {@code client} presents to {@code server}, by a handshake in memory. */
    private static String presentedBy(SslContext client, SslContext server) throws Exception {
        return presentedBy(client, server, "localhost");
    }

    /** As {@link #presentedBy(SslContext, SslContext)}, the client dialling {@code host}. */
    private static String presentedBy(SslContext client, SslContext server, String host) throws Exception {
        SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, host, 1);
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        ByteBuffer toServer = ByteBuffer.allocate(1 << 17);
        ByteBuffer toClient = ByteBuffer.allocate(1 << 17);
        ByteBuffer app = ByteBuffer.allocate(1 << 17);
        ByteBuffer none = ByteBuffer.allocate(0);
        c.beginHandshake();
        s.beginHandshake();
        for (int round = 0; round < 50 && !(idle(c) && idle(s)); round++) {
            var _ = c.wrap(none, toServer);
            tasks(c);
            toServer.flip();
            while (toServer.hasRemaining() && s.unwrap(toServer, app).bytesConsumed() > 0) {
                tasks(s);
            }
            toServer.compact();
            var _ = s.wrap(none, toClient);
            tasks(s);
            toClient.flip();
            while (toClient.hasRemaining() && c.unwrap(toClient, app).bytesConsumed() > 0) {
                tasks(c);
            }
            toClient.compact();
        }
        Certificate[] seen = s.getSession().getPeerCertificates();
        return ((X509Certificate) seen[0]).getSubjectX500Principal().getName();
    }

    private static boolean idle(SSLEngine e) {
        var status = e.getHandshakeStatus();
        return status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                || status == SSLEngineResult.HandshakeStatus.FINISHED;
    }

    private static void tasks(SSLEngine e) {
        Runnable task;
        while ((task = e.getDelegatedTask()) != null) {
            task.run();
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
