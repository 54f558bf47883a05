package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.wal.WalRecoveryMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --wal-recovery}: refuse by default, truncate-after-corruption on request, nothing else. */
class ServeCommandWalRecoveryTest {

    @Test
    void refuseIsTheDefaultAndTruncateReachesTheEngineOptions() {
        assertThat(ServeCommandClockTest.parse("--port", "0").storage().walRecovery()).isEqualTo(WalRecoveryMode.REFUSE);
        assertThat(ServeCommandClockTest.parse("--port", "0", "--wal-recovery", "truncate-after-corruption")
                .storage().walRecovery()).isEqualTo(WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION);
    }

    @Test
    void anUnknownModeIsRefused() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--wal-recovery", "skip"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--wal-recovery");
    }
}
