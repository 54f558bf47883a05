package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.compaction.CompactionStrategy;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve}'s compaction flags: the strategy, its bound, the tombstone and write triggers reach the engine. */
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

    @Test
    void universalWithItsBoundAndTheTombstoneTriggerAreTheDefaults() {
        CompactionOptions c =
                ServeCommandClockTest.parse("--port", "0").storage().compaction();
        assertThat(c.strategy()).isEqualTo(CompactionOptions.DEFAULT_STRATEGY);
        assertThat(c.maxSizeAmplificationPercent()).isEqualTo(25);
        assertThat(c.tombstoneThreshold()).isEqualTo(0.2);
        assertThat(c.tombstoneIntervalMs()).isEqualTo(24L * 60 * 60 * 1000);
    }

    @Test
    void theStrategyFlagsReachTheEngineOptions() {
        CompactionOptions c = ServeCommandClockTest.parse(
                        "--port",
                        "0",
                        "--compaction",
                        "size-tiered",
                        "--compaction-max-space-amp-percent",
                        "50",
                        "--compaction-tombstone-threshold",
                        "0.5",
                        "--compaction-tombstone-interval",
                        "2h")
                .storage()
                .compaction();
        assertThat(c.strategy()).isEqualTo(CompactionStrategy.SIZE_TIERED);
        assertThat(c.maxSizeAmplificationPercent()).isEqualTo(50);
        assertThat(c.tombstoneThreshold()).isEqualTo(0.5);
        assertThat(c.tombstoneIntervalMs()).isEqualTo(2 * 60 * 60 * 1000L);
    }

    @Test
    void anUnknownStrategyOrABoundOutOfRangeIsRefusedNamingTheFlag() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--compaction", "leveled"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--compaction")
                .hasMessageContaining("universal")
                .hasMessageContaining("'leveled'");
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--compaction-max-space-amp-percent", "0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--compaction-max-space-amp-percent");
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--compaction-tombstone-threshold", "0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--compaction-tombstone-threshold");
    }
}
