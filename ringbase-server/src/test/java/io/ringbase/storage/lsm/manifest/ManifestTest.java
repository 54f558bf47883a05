package io.ringbase.storage.lsm.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestTest {

    @TempDir
    Path dir;

    @Test
    void roundTrips() throws Exception {
        ManifestState s = new ManifestState(42, 40, List.of(3L, 17L, 39L));
        Manifest.write(dir, s);
        assertThat(Manifest.read(dir)).contains(s);
        assertThat(Files.exists(FileNames.manifestTmp(dir))).isFalse();
    }

    @Test
    void absentManifestIsEmpty() throws Exception {
        assertThat(Manifest.read(dir)).isEmpty();
    }

    @Test
    void everyFlippedByteIsDetected() throws Exception {
        Manifest.write(dir, new ManifestState(42, 40, List.of(3L, 17L)));
        byte[] good = Files.readAllBytes(FileNames.manifest(dir));
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x10;
            Files.write(FileNames.manifest(dir), bad);
            assertThatThrownBy(() -> Manifest.read(dir)).as("byte %d", i).isInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void truncatedManifestIsCorruption() throws Exception {
        Manifest.write(dir, new ManifestState(42, 40, List.of(3L, 17L)));
        byte[] good = Files.readAllBytes(FileNames.manifest(dir));
        for (int len = 0; len < good.length; len++) {
            Files.write(FileNames.manifest(dir), java.util.Arrays.copyOf(good, len));
            assertThatThrownBy(() -> Manifest.read(dir)).isInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void fileNamesRoundTrip() {
        assertThat(FileNames.parse(FileNames.wal(dir, 7).getFileName().toString()))
                .contains(new FileNames.Parsed(FileNames.Kind.WAL, 7));
        assertThat(FileNames.parse(
                        FileNames.sstable(dir, 123456789012L).getFileName().toString()))
                .contains(new FileNames.Parsed(FileNames.Kind.SSTABLE, 123456789012L));
        assertThat(FileNames.parse(FileNames.sstableTmp(dir, 5).getFileName().toString())
                        .orElseThrow()
                        .kind())
                .isEqualTo(FileNames.Kind.TEMPORARY);
        assertThat(FileNames.parse("notes.txt")).isEmpty();
    }

    @Test
    void secondLockOnTheSameDirectoryIsRefused() throws Exception {
        try (DataDirectory _ = DataDirectory.lock(dir)) {
            assertThatThrownBy(() -> DataDirectory.lock(dir)).hasMessageContaining("in use");
        }
        DataDirectory.lock(dir).close();
    }
}
