package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up after a power loss under {@code periodic} that left a hole of zeros before records that did
 * reach the disk: by default the node refuses and names the flag; with
 * {@code --wal-recovery=truncate-after-corruption} it recovers up to the last good record.
 */
class WalRecoveryModeTest {

    @TempDir
    Path tmp;

    /** A data directory holding only a WAL segment of records a, b, c with record b zeroed out. */
    private Path directoryWithAHole() throws IOException {
        Path dir = tmp.resolve("d");
        Files.createDirectories(dir);
        Path segment = FileNames.wal(dir, 1);
        long[] ends = new long[3];
        try (WalWriter w = WalWriter.create(segment, WalSyncPolicy.ALWAYS, 1000)) {
            String[] keys = {"a", "b", "c"};
            for (int i = 0; i < 3; i++) {
                w.append(Entry.value(Keys.utf8(keys[i]), 1L << 40 | i, Keys.utf8("value-" + keys[i])));
                ends[i] = w.sizeBytes();
            }
        }
        byte[] bytes = Files.readAllBytes(segment);
        Arrays.fill(bytes, (int) ends[0], (int) ends[1], (byte) 0); // writeback lost record b's page
        Files.write(segment, bytes);
        return dir;
    }

    @Test
    void byDefaultStartUpRefusesAndNamesTheFlag() throws IOException {
        Path dir = directoryWithAHole();
        assertThatThrownBy(() -> LsmEngine.open(LsmOptions.defaults(dir)))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("wal-")
                .hasMessageContaining("--wal-recovery=truncate-after-corruption");
        assertThat(FileNames.wal(dir, 1)).exists(); // nothing dropped
    }

    @Test
    void truncateAfterCorruptionRecoversUpToTheLastGoodRecord() throws IOException {
        Path dir = directoryWithAHole();
        LsmOptions options = LsmOptions.defaults(dir).withWalRecovery(WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION);
        try (LsmEngine engine = LsmEngine.open(options)) {
            assertThat(engine.get(Keys.utf8("a"))).isNotNull();
            assertThat(engine.get(Keys.utf8("b"))).isNull();
            assertThat(engine.get(Keys.utf8("c"))).isNull(); // after the damage: dropped with it
        }
        try (LsmEngine again = LsmEngine.open(LsmOptions.defaults(dir))) { // the default mode starts now
            assertThat(again.get(Keys.utf8("a"))).isNotNull();
        }
    }

    @Test
    void theFlagParsesAndRejectsUnknownValues() {
        assertThat(WalRecoveryMode.ofFlag("refuse")).isEqualTo(WalRecoveryMode.REFUSE);
        assertThat(WalRecoveryMode.ofFlag("truncate-after-corruption"))
                .isEqualTo(WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION);
        assertThatThrownBy(() -> WalRecoveryMode.ofFlag("skip")).hasMessageContaining("--wal-recovery");
    }
}
