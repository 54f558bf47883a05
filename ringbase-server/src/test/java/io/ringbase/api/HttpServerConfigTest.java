package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HttpServerConfigTest {

    @Test
    void defaultsAreDocumentedValues() {
        HttpServerConfig c = HttpServerConfig.defaults(8080);
        assertThat(c.host()).isEqualTo("0.0.0.0");
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.maxBodyBytes()).isEqualTo(16 * 1024 * 1024);
        assertThat(c.workerThreads()).isEqualTo(8);
        assertThat(c.queueCapacity()).isEqualTo(1024);
        assertThat(c.ioThreads()).isEqualTo(2);
    }

    @Test
    void rejectsInvalidValues() {
        HttpServerConfig d = HttpServerConfig.defaults(0);
        assertThatThrownBy(() -> d.withHost(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpServerConfig.defaults(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpServerConfig.defaults(65_536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withMaxBodyBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withWorkers(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withWorkers(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HttpServerConfig("h", 0, 1, 1, 1, 0, true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HttpServerConfig(null, 0, 1, 1, 1, 1, true))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void eachWithChangesOnlyItsFields() {
        HttpServerConfig d = HttpServerConfig.defaults(8080);
        HttpServerConfig c =
                d.withWorkers(3, 7).withConnectionLimits(11, 13, 17).withScanIdleTimeout(19);
        assertThat(c.workerThreads()).isEqualTo(3);
        assertThat(c.queueCapacity()).isEqualTo(7);
        assertThat(c.requestTimeoutMs()).isEqualTo(11);
        assertThat(c.idleTimeoutMs()).isEqualTo(13);
        assertThat(c.maxConnections()).isEqualTo(17);
        assertThat(c.scanIdleTimeoutMs()).isEqualTo(19);
        assertThat(c.withHost("127.0.0.1").withMaxBodyBytes(23).withInlinePointRequests(false))
                .isEqualTo(new HttpServerConfig("127.0.0.1", 8080, 23, 3, 7, d.ioThreads(), false, 11, 13, 17, 19));
    }
}
