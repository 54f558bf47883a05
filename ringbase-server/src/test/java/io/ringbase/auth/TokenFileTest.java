package io.ringbase.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.logging.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The token file is reloaded when it changes; a bad file keeps the tokens before it and says which line. */
class TokenFileTest {

    static final String A = "token-a-0123456789abcdef";
    static final String B = "token-b-0123456789abcdef";

    @RegisterExtension
    final LogCapture log = new LogCapture(TokenFile.class);

    @TempDir
    Path dir;

    @Test
    void aChangedFileIsReloadedByThePoller() throws Exception {
        Path file = write("tokens", "a " + A + " read\n");
        try (TokenFile tokens = TokenFile.open(file, 20)) {
            assertThat(tokens.get().authorize("Bearer " + A)).isNotNull();
            replace(file, "b " + B + " read,write\n");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> tokens.get().authorize("Bearer " + B) != null);
            assertThat(tokens.get().authorize("Bearer " + A)).isNull();
        }
    }

    @Test
    void aBadFileKeepsTheOldTokensAndWarnsOnceNamingTheLine() throws Exception {
        Path file = write("tokens", "a " + A + " read\n");
        try (TokenFile tokens = TokenFile.open(file, 60_000)) { // polled by hand below
            replace(file, "# new tokens\nb " + B + " read\nc " + B + "-c wirte\n");
            tokens.pollNow();
            tokens.pollNow(); // the same bad file: not reported twice
            assertThat(tokens.get().authorize("Bearer " + A)).isNotNull();
            assertThat(tokens.get().authorize("Bearer " + B)).isNull();
            assertThat(log.warningMessages()).hasSize(1);
            assertThat(log.warningMessages().getFirst())
                    .contains("line 3")
                    .contains("unknown permission 'wirte'")
                    .contains("keeping the 1 tokens loaded before")
                    .doesNotContain(A)
                    .doesNotContain(B);
            replace(file, "b " + B + " read\n");
            tokens.pollNow();
            assertThat(tokens.get().authorize("Bearer " + B)).isNotNull();
        }
    }

    @Test
    void aDeletedFileKeepsTheOldTokens() throws Exception {
        Path file = write("tokens", "a " + A + " read\n");
        try (TokenFile tokens = TokenFile.open(file, 60_000)) {
            Files.delete(file);
            tokens.pollNow();
            assertThat(tokens.get().authorize("Bearer " + A)).isNotNull();
            assertThat(log.warningMessages()).singleElement().asString().contains("no such file");
        }
    }

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    /** As an operator should: write a new file, then rename it over the old one. */
    private void replace(Path file, String text) throws Exception {
        Path tmp = Files.writeString(dir.resolve("tokens.new"), text);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
