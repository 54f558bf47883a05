package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code serve --token-file} needs the cluster secret: the node-to-node API takes no client token. */
class ServeCommandTokenFileTest {

    @TempDir
    Path tmp;

    @Test
    void aTokenFileWithoutAClusterSecretIsAUsageError() throws Exception {
        Path tokens = Files.writeString(tmp.resolve("tokens"), "app app-token-0123456789 read\n");
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--token-file", tokens.toString()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--token-file needs --cluster-secret-file")
                .hasMessageNotContaining("app-token");
    }

    @Test
    void aTokenFileWithASecretIsAccepted() throws Exception {
        Path tokens = Files.writeString(tmp.resolve("tokens"), "app app-token-0123456789 read\n");
        Path secret = Files.writeString(tmp.resolve("secret"), "a-cluster-secret-of-32-characters");
        assertThat(ServeCommandClockTest.parse(
                        "--port", "0", "--token-file", tokens.toString(), "--cluster-secret-file", secret.toString()))
                .isNotNull();
    }
}
