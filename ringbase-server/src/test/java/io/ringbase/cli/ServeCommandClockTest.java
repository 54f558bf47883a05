package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.node.NodeConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The clock flags of {@code serve}: {@code --max-clock-offset} and the hidden {@code --test-clock-offset-ms}. */
class ServeCommandClockTest {

    static NodeConfig parse(String... args) {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve)
                .registerConverter(ByteSize.class, ByteSize::parse)
                .registerConverter(TimeSpan.class, TimeSpan::parse)
                .parseArgs(args);
        return serve.validate();
    }

    @Test
    void theClockBoundIs500MsByDefaultAndUnskewed() {
        NodeConfig c = parse("--port", "0");
        assertThat(c.clock().maxOffsetMs()).isEqualTo(500);
        assertThat(c.clock().testOffsetMs()).isZero();
    }

    @Test
    void bothClockFlagsReachTheConfig() {
        NodeConfig c = parse("--port", "0", "--max-clock-offset", "2s", "--test-clock-offset-ms", "-1500");
        assertThat(c.clock().maxOffsetMs()).isEqualTo(2_000);
        assertThat(c.clock().testOffsetMs()).isEqualTo(-1_500);
    }

    @Test
    void aZeroMaxClockOffsetIsRefused() {
        assertThatThrownBy(() -> parse("--port", "0", "--max-clock-offset", "0ms"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("clock offset");
    }

    @Test
    void theTestFlagIsHiddenFromHelp() {
        String usage = new CommandLine(new ServeCommand()).getUsageMessage();
        assertThat(usage).contains("--max-clock-offset").doesNotContain("--test-clock-offset-ms");
    }
}
