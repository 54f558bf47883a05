package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code ringbase aot-train}'s refusals, in this JVM (which does not record a training run). The training
 * itself runs in ReleaseTarballIT, through the release's launcher, as a user runs it.
 */
class AotTrainCommandTest {

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void aJvmThatDoesNotRecordIsToldHowToRunIt() {
        assertThat(AotTrainCommand.recording()).as("the test JVM records no training run").isFalse();
        Run r = run("aot-train", "--duration", "1s");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ringbase aot-train: this JVM was started neither with -XX:AOTMode=record")
                .contains("run it as bin/ringbase aot-train");
        assertThat(r.out()).doesNotContain("under load");
    }

    @Test
    void durationAndConnectionsOutOfRangeAreUsageErrors() {
        Run shortRun = run("aot-train", "--duration", "500ms");
        assertThat(shortRun.code()).isEqualTo(2);
        assertThat(shortRun.err()).contains("--duration must be between 1s and 10m, got 500ms");
        Run noConnections = run("aot-train", "--connections", "0");
        assertThat(noConnections.code()).isEqualTo(2);
        assertThat(noConnections.err()).contains("--connections must be between 1 and 256, got 0");
    }
}
