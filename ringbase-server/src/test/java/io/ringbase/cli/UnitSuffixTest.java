package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnitSuffixTest {

    @Test
    void durationsTakeTheirUnit() {
        assertThat(TimeSpan.parse("10d").millis()).isEqualTo(10L * 24 * 3600 * 1000);
        assertThat(TimeSpan.parse("3h").millis()).isEqualTo(3L * 3600 * 1000);
        assertThat(TimeSpan.parse("2m").millis()).isEqualTo(120_000);
        assertThat(TimeSpan.parse("1s").millis()).isEqualTo(1000);
        assertThat(TimeSpan.parse("500ms").millis()).isEqualTo(500); // "ms" before "s" and "m"
        assertThat(TimeSpan.parse("7").millis()).isEqualTo(7);
        assertThatThrownBy(() -> TimeSpan.parse("soon")).hasMessageContaining("not a duration: 'soon'");
        assertThatThrownBy(() -> TimeSpan.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sizesTakeTheirUnit() {
        assertThat(ByteSize.parse("16m").bytes()).isEqualTo(16L << 20);
        assertThat(ByteSize.parse("1GiB").bytes()).isEqualTo(1L << 30);
        assertThat(ByteSize.parse("512k").bytes()).isEqualTo(512L << 10);
        assertThat(ByteSize.parse("100").bytes()).isEqualTo(100);
        assertThatThrownBy(() -> ByteSize.parse("lots")).hasMessageContaining("not a size in bytes: 'lots'");
        assertThatThrownBy(() -> ByteSize.parse("0")).isInstanceOf(IllegalArgumentException.class);
    }
}
