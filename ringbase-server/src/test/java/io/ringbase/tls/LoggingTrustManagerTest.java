package io.ringbase.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.logging.LogCapture;
import io.ringbase.testing.TestCertificates;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

@Timeout(30)
class LoggingTrustManagerTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(LoggingTrustManagerTest.class);

    private final X509Certificate[] chain = {
        new TestCertificates("test-ca").issue("peer-a").certificate()
    };

    @Test
    void aRefusalGoesOnAndIsLoggedOncePerIntervalWithTheCertificatesSubject() {
        var trust = new LoggingTrustManager(
                new Refusing(), "metadata group", LoggerFactory.getLogger(LoggingTrustManagerTest.class));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> trust.checkClientTrusted(chain, "RSA"))
                    .isInstanceOf(CertificateException.class)
                    .hasMessage("not of our CA");
        }
        assertThatThrownBy(() -> trust.checkServerTrusted(chain, "RSA")).isInstanceOf(CertificateException.class);
        assertThat(log.warningMessages())
                .containsExactly(
                        "metadata group: refused the TLS certificate of a connecting peer (subject 'CN=peer-a'): not"
                                + " of our CA; every node's --tls-cert must be issued by the CA of the others'"
                                + " --tls-ca and name the host it is reached at",
                        "metadata group: refused the TLS certificate of the peer dialled (subject 'CN=peer-a'): not"
                                + " of our CA; every node's --tls-cert must be issued by the CA of the others'"
                                + " --tls-ca and name the host it is reached at");
    }

    @Test
    void anAcceptedCertificateLogsNothing() throws Exception {
        var trust = new LoggingTrustManager(
                new Accepting(), "metadata group", LoggerFactory.getLogger(LoggingTrustManagerTest.class));
        trust.checkClientTrusted(chain, "RSA");
        trust.checkServerTrusted(chain, "RSA");
        assertThat(log.warningMessages()).isEmpty();
    }

    private static class Accepting extends X509ExtendedTrustManager {
        void decide() throws CertificateException {}

        @Override
        public void checkClientTrusted(X509Certificate[] c, String a) throws CertificateException {
            decide();
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String a) throws CertificateException {
            decide();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] c, String a, Socket s) throws CertificateException {
            decide();
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String a, Socket s) throws CertificateException {
            decide();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] c, String a, SSLEngine e) throws CertificateException {
            decide();
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String a, SSLEngine e) throws CertificateException {
            decide();
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    private static final class Refusing extends Accepting {
        @Override
        void decide() throws CertificateException {
            throw new CertificateException("not of our CA");
        }
    }
}
