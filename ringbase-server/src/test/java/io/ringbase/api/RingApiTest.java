package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The two forms of {@code GET /v0/ring} as docs/http-api.md, "Placement for clients", gives them. */
class RingApiTest {

    private static final RingView VIEW = new RingView(
            4,
            2,
            List.of(
                    new RingView.Member("http://10.0.0.1:8080", "http://10.0.0.1:8080"),
                    new RingView.Member("http://10.0.0.4:8080", "http://10.0.0.2:8080")));

    @Test
    void jsonFormIsOneObject() {
        assertThat(RingApi.json(VIEW))
                .isEqualTo(
                        "{\"epoch\":4,\"replicationFactor\":2,\"hash\":\"xxh64\",\"placement\":\"rendezvous-fmix64\","
                                + "\"nodes\":[{\"url\":\"http://10.0.0.1:8080\",\"seed\":\"http://10.0.0.1:8080\"},"
                                + "{\"url\":\"http://10.0.0.4:8080\",\"seed\":\"http://10.0.0.2:8080\"}]}\n");
    }

    @Test
    void textFormIsAVersionLineThenNamedLines() {
        assertThat(RingApi.text(VIEW)).isEqualTo("""
                        ringbase-ring 1
                        epoch 4
                        replication-factor 2
                        hash xxh64
                        placement rendezvous-fmix64
                        node http://10.0.0.1:8080 http://10.0.0.1:8080
                        node http://10.0.0.4:8080 http://10.0.0.2:8080
                        """);
    }

    @Test
    void aNameThatWouldBreakEitherFormIsRefused() {
        assertThatThrownBy(() -> new RingView.Member("http://a b:1", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("url");
        assertThatThrownBy(() -> new RingView.Member("http://a:1", "x\"y")).hasMessageContaining("seed");
        assertThatThrownBy(() -> new RingView(0, 3, VIEW.nodes())).hasMessageContaining("replication factor 3");
    }
}
