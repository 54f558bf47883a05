package io.ringbase.cluster.hint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HintOptionsTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        HintOptions d = HintOptions.defaults();

        assertThat(d.maxAgeMs()).isEqualTo(3 * 3_600_000L);
        assertThat(d.maxTotalBytes()).isEqualTo(1L << 30);
        assertThat(d.maxInFlight()).isEqualTo(16);
        assertThat(d.maxPerSecond()).isEqualTo(10_000);
        assertThat(d.queueCapacity()).isEqualTo(10_000);
    }

    @Test
    void nonPositiveValuesAreRefusedByName() {
        assertThatThrownBy(() -> HintOptions.defaults().withMaxAgeMs(0)).hasMessageContaining("maxAgeMs");
        assertThatThrownBy(() -> HintOptions.defaults().withMaxTotalBytes(-1)).hasMessageContaining("maxTotalBytes");
        assertThatThrownBy(() -> HintOptions.defaults().withMaxInFlight(0)).hasMessageContaining("maxInFlight");
        assertThatThrownBy(() -> HintOptions.defaults().withMaxPerSecond(0)).hasMessageContaining("maxPerSecond");
        assertThatThrownBy(() -> HintOptions.defaults().withQueueCapacity(0)).hasMessageContaining("queueCapacity");
    }
}
