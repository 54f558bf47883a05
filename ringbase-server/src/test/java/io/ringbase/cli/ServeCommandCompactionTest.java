package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.lsm.compaction.CompactionOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --compaction-slowdown-tables / --compaction-stop-tables}: the write triggers reach the engine. */
class ServeCommandCompactionTest {

    @Test
    void theDefaultsAreRocksDbsTriggers() {
        CompactionOptions c =
                ServeCommandClockTest.parse("--port", "0").storage().compaction();
        assertThat(c.slowdownTables())
                .isEqualTo(CompactionOptions.DEFAULT_SLOWDOWN_TABLES)
                .isEqualTo(20);
        assertThat(c.stopTables())
                .isEqualTo(CompactionOptions.DEFAULT_STOP_TABLES)
                .isEqualTo(36);
    }

    @Test
    void theFlagsReachTheEngineOptions() {
        CompactionOptions c = ServeCommandClockTest.parse(
                        "--port", "0", "--compaction-slowdown-tables", "8", "--compaction-stop-tables", "12")
                .storage()
                .compaction();
        assertThat(c.slowdownTables()).isEqualTo(8);
        assertThat(c.stopTables()).isEqualTo(12);
        assertThat(c.minThreshold()).isEqualTo(CompactionOptions.defaults().minThreshold());
    }

    @Test
    void aStopBelowTheSlowdownIsRefusedNamingBothFlags() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse(
                        "--port", "0", "--compaction-slowdown-tables", "10", "--compaction-stop-tables", "5"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--compaction-slowdown-tables")
                .hasMessageContaining("--compaction-stop-tables");
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--compaction-slowdown-tables", "0"))
                .isInstanceOf(CommandLine.ParameterException.class);
    }
}
