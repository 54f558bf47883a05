package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.node.NodeConfig;
import io.ringbase.tls.TlsOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --tls-cert/--tls-key/--tls-ca/--tls-reload-interval} into the HTTP config. */
class ServeCommandTlsTest {

    @Test
    void noTlsFlagsMeanPlainHttp() {
        assertThat(ServeCommandClockTest.parse("--port", "0").http().tls()).isNull();
    }

    @Test
    void theFlagsFlowIntoTheHttpConfig() {
        NodeConfig c = ServeCommandClockTest.parse(
                "--port",
                "0",
                "--tls-cert",
                "/etc/rb/node.pem",
                "--tls-key",
                "/etc/rb/node.key",
                "--tls-ca",
                "/etc/rb/ca.pem",
                "--tls-reload-interval",
                "250ms");
        TlsOptions tls = c.http().tls();
        assertThat(tls).isNotNull();
        assertThat(tls.certFile()).hasToString("/etc/rb/node.pem");
        assertThat(tls.keyFile()).hasToString("/etc/rb/node.key");
        assertThat(tls.caFile()).hasToString("/etc/rb/ca.pem");
        assertThat(tls.reloadIntervalMs()).isEqualTo(250);
        assertThat(ServeCommandClockTest.parse("--port", "0", "--tls-cert", "c", "--tls-key", "k")
                        .http()
                        .tls()
                        .reloadIntervalMs())
                .isEqualTo(TlsOptions.DEFAULT_RELOAD_INTERVAL_MS);
    }

    @Test
    void aCertificateWithoutItsKeyIsAUsageError() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--tls-cert", "node.pem"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--tls-cert and --tls-key go together: give both or neither");
    }

    @Test
    void aCaWithoutACertificateIsAUsageError() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--tls-ca", "ca.pem"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--tls-ca needs --tls-cert and --tls-key");
    }

    @Test
    void tlsFlagsWithHttpPeerUrlsAreAUsageError() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse(
                        "--cluster",
                        "http://127.0.0.1:9001,http://127.0.0.1:9002",
                        "--self",
                        "http://127.0.0.1:9001",
                        "--tls-cert",
                        "c",
                        "--tls-key",
                        "k"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--tls-cert on a member of a cluster needs https:// URLs");
    }

    @Test
    void httpsPeerUrlsWithoutTlsFlagsAreAUsageError() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse(
                        "--cluster",
                        "https://127.0.0.1:9001,https://127.0.0.1:9002",
                        "--self",
                        "https://127.0.0.1:9001"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("https:// cluster URLs need --tls-cert");
    }

    @Test
    void httpsPeerUrlsWithTheTlsFlagsTurnOnTlsBetweenNodes() {
        NodeConfig c = ServeCommandClockTest.parse(
                "--cluster",
                "https://127.0.0.1:9001,https://127.0.0.1:9002",
                "--self",
                "https://127.0.0.1:9001",
                "--tls-cert",
                "c",
                "--tls-key",
                "k",
                "--tls-ca",
                "ca");
        assertThat(c.http().tls()).isNotNull();
        assertThat(c.http().tls().nodeToNode()).isTrue();
        assertThat(c.http().tls().requiresClientCertificates()).isFalse(); // tokens still work without one
        assertThat(c.topology().self().port()).isEqualTo(9001);
        assertThat(c.topology().size()).isEqualTo(2);
    }
}
