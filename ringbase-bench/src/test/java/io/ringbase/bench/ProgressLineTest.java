package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The stable run's progress line: the elapsed seconds, one line a tick. */
class ProgressLineTest {

    @Test
    void eachTickPrintsTheElapsedSecondsOfTheRun() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProgressLine line = new ProgressLine("stable run", 60, new PrintStream(out, true, StandardCharsets.UTF_8));
        line.tick(1);
        line.tick(2);
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("bench: stable run 1/60 s", "bench: stable run 2/60 s");
    }
}
