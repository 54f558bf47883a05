package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --wal-recovery} and {@code cluster --wal-recovery}: refuse by default, truncate-after-corruption on request, nothing else. */
class ServeCommandWalRecoveryTest {

    @Test
    void refuseIsTheDefaultAndTruncateReachesTheEngineOptions() {
        assertThat(ServeCommandClockTest.parse("--port", "0").storage().walRecovery())
                .isEqualTo(WalRecoveryMode.REFUSE);
        assertThat(ServeCommandClockTest.parse("--port", "0", "--wal-recovery", "truncate-after-corruption")
                        .storage()
                        .walRecovery())
                .isEqualTo(WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION);
    }

    @Test
    void clusterPassesTheModeToEveryNode() {
        ClusterCommand cluster = new ClusterCommand();
        new CommandLine(cluster).parseArgs("--nodes", "2");
        assertThat(cluster.validate())
                .extracting(c -> c.storage().walRecovery())
                .containsOnly(WalRecoveryMode.REFUSE);
        ClusterCommand truncating = new ClusterCommand();
        new CommandLine(truncating).parseArgs("--nodes", "2", "--wal-recovery", "truncate-after-corruption");
        assertThat(truncating.validate())
                .extracting(c -> c.storage().walRecovery())
                .containsOnly(WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION);
        ClusterCommand wrong = new ClusterCommand();
        new CommandLine(wrong).parseArgs("--wal-recovery", "skip");
        assertThatThrownBy(wrong::validate)
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--wal-recovery");
    }

    @Test
    void anUnknownModeIsRefused() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--wal-recovery", "skip"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--wal-recovery");
    }
}
