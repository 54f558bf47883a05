package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TtlTest {

    @Test
    void parsesDecimalSecondsRoundingUpToMillis() throws Exception {
        assertThat(Ttl.parseMillis("10")).isEqualTo(10_000);
        assertThat(Ttl.parseMillis("0.5")).isEqualTo(500);
        assertThat(Ttl.parseMillis(".25")).isEqualTo(250);
        assertThat(Ttl.parseMillis("5.")).isEqualTo(5_000);
        assertThat(Ttl.parseMillis("0.0001")).isEqualTo(1);
        assertThat(Ttl.parseMillis("1.0005")).isEqualTo(1_001);
        assertThat(Ttl.parseMillis(Long.toString(Ttl.MAX_SECONDS))).isEqualTo(Ttl.MAX_SECONDS * 1000);
    }

    @Test
    void rejectsNonPositiveNonFiniteMalformedAndTooLong() {
        String[] bad = {
            "",
            "0",
            "0.0",
            "-1",
            "+1",
            "abc",
            "NaN",
            "Infinity",
            "1e3",
            "0x10",
            " 1",
            "1 ",
            ".",
            "1.2.3",
            Long.toString(Ttl.MAX_SECONDS + 1),
            "99999999999999999999",
            "1".repeat(40)
        };
        for (String b : bad) {
            assertThatThrownBy(() -> Ttl.parseMillis(b)).as("'" + b + "'").isInstanceOf(BadRequestException.class);
        }
    }
}
