package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scheme of the cluster URLs against the TLS flags ({@link ClusterTls}), case by case. */
@Timeout(10)
class ClusterTlsTest {

    private static final List<String> HTTP = List.of("http://a:1", "http://b:2");
    private static final List<String> HTTPS = List.of("https://a:1", "https://b:2");

    @Test
    void httpUrlsWithoutTlsArePlain() {
        assertThat(ClusterTls.nodeToNode(HTTP, "http://a:1", null, false, false, false))
                .isFalse();
    }

    @Test
    void aNodeAloneMayServeTlsWithAnHttpUrl() {
        assertThat(ClusterTls.nodeToNode(List.of("http://a:1"), null, null, true, true, false))
                .isFalse();
        assertThat(ClusterTls.nodeToNode(null, null, null, true, true, true)).isFalse();
    }

    @Test
    void httpsUrlsWithCertificateKeyAndCaAreTlsBetweenNodes() {
        assertThat(ClusterTls.nodeToNode(HTTPS, "https://a:1", null, false, true, true))
                .isTrue();
    }

    @Test
    void httpsUrlsWithoutACertificateAreRefused() {
        assertThatThrownBy(() -> ClusterTls.nodeToNode(HTTPS, "https://a:1", null, false, false, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("https:// cluster URLs need --tls-cert and --tls-key");
    }

    @Test
    void httpsUrlsWithoutACaAreRefused() {
        assertThatThrownBy(() -> ClusterTls.nodeToNode(HTTPS, "https://a:1", null, false, true, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("need --tls-ca");
    }

    @Test
    void tlsFlagsWithHttpPeersAreRefused() {
        assertThatThrownBy(() -> ClusterTls.nodeToNode(HTTP, "http://a:1", null, false, true, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs https:// URLs");
    }

    @Test
    void mixedSchemesAreRefusedNamingBoth() {
        assertThatThrownBy(() -> ClusterTls.nodeToNode(
                        List.of("https://a:1", "http://b:2"), "https://a:1", null, false, true, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'https://a:1' and 'http://b:2' differ");
        assertThatThrownBy(() -> ClusterTls.nodeToNode(HTTPS, "http://a:1", null, false, true, true))
                .as("--self counts too")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("differ");
    }

    @Test
    void httpsWithElasticMembershipIsTls() {
        // the metadata group's Raft port speaks mutual TLS too (Ratis over gRPC), so --join and
        // --metadata-port-offset take https:// URLs as a --cluster list does
        assertThat(ClusterTls.nodeToNode(null, "https://c:3", "https://a:1", false, true, true))
                .isTrue();
        assertThat(ClusterTls.nodeToNode(HTTPS, "https://a:1", null, false, true, true))
                .isTrue();
        assertThatThrownBy(() -> ClusterTls.nodeToNode(null, "https://c:3", "http://a:1", false, true, true))
                .as("a --join URL of the other scheme")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("differ");
        assertThatThrownBy(() -> ClusterTls.nodeToNode(null, "https://c:3", "https://a:1", false, true, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--tls-ca");
    }
}
