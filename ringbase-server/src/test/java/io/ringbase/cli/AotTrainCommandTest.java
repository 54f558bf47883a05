package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code ringbase aot-train}'s refusals, in this JVM (which does not record a training run). The training
 * itself runs in ReleaseTarballIT, through the release's launcher, as a user runs it.
 */
class AotTrainCommandTest {

    @Test
    void aJvmThatDoesNotRecordIsToldHowToRunIt() {
        assertThat(AotTrainCommand.recording())
                .as("the test JVM records no training run")
                .isFalse();
        CommandRun r = CommandRun.of("aot-train", "--duration", "1s");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("ringbase aot-train: this JVM was started neither with -XX:AOTMode=record")
                .contains("run it as bin/ringbase aot-train");
        assertThat(r.out()).doesNotContain("under load");
    }

    @Test
    void durationAndConnectionsOutOfRangeAreUsageErrors() {
        CommandRun shortRun = CommandRun.of("aot-train", "--duration", "500ms");
        assertThat(shortRun.exitCode()).isEqualTo(2);
        assertThat(shortRun.err()).contains("--duration must be between 1s and 10m, got 500ms");
        CommandRun noConnections = CommandRun.of("aot-train", "--connections", "0");
        assertThat(noConnections.exitCode()).isEqualTo(2);
        assertThat(noConnections.err()).contains("--connections must be between 1 and 256, got 0");
    }
}
