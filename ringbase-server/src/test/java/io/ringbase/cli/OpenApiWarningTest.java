package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A node bound beyond loopback says once that its API is open, and whether internal requests are signed. */
class OpenApiWarningTest {

    @Test
    void loopbackBindsAreQuiet() {
        assertThat(ServeStartup.openApiWarning("127.0.0.1", 8080, false, false)).isNull();
        assertThat(ServeStartup.openApiWarning("localhost", 8080, false, false)).isNull();
        assertThat(ServeStartup.openApiWarning("::1", 8080, false, false)).isNull();
    }

    @Test
    void theDefaultBindWarnsAndNamesTheMissingSecret() {
        assertThat(ServeStartup.openApiWarning("0.0.0.0", 8080, false, false))
                .contains("0.0.0.0:8080")
                .contains("unsigned (no --cluster-secret-file)")
                .contains("--host 127.0.0.1")
                .contains("--token-file");
        assertThat(ServeStartup.openApiWarning("10.1.2.3", 9000, true, false))
                .contains("10.1.2.3:9000")
                .doesNotContain("unsigned");
    }

    @Test
    void aTokenFileClosesTheApiSoNothingIsSaid() {
        assertThat(ServeStartup.openApiWarning("0.0.0.0", 8080, true, true)).isNull();
    }
}
