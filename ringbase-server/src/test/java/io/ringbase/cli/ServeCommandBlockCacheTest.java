package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.lsm.LsmOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --block-cache-size}: its default, sizes with units, 0 for none, and what is refused. */
class ServeCommandBlockCacheTest {

    private static long blockCache(String... flags) {
        String[] args = new String[flags.length + 2];
        args[0] = "--port";
        args[1] = "0";
        System.arraycopy(flags, 0, args, 2, flags.length);
        return ServeCommandClockTest.parse(args).storage().blockCacheBytes();
    }

    @Test
    void theDefaultIsNone() {
        assertThat(blockCache()).isEqualTo(LsmOptions.DEFAULT_BLOCK_CACHE_BYTES).isZero();
    }

    @Test
    void sizesWithUnitsAndZeroAreTaken() {
        assertThat(blockCache("--block-cache-size", "64m")).isEqualTo(64L << 20);
        assertThat(blockCache("--block-cache-size", "0")).isZero();
    }

    @Test
    void negativeAndMalformedSizesAreRefusedNamingTheFlag() {
        assertThatThrownBy(() -> blockCache("--block-cache-size", "-1m"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--block-cache-size");
        assertThatThrownBy(() -> blockCache("--block-cache-size", "lots"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--block-cache-size");
    }
}
