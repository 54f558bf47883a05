package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.EngineStats;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.manifest.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged compaction input is quarantined, not retried forever: moved to
 * {@code quarantine/}, dropped from the manifest, counted in {@link EngineStats#quarantinedTables()};
 * the other tables compact and the node restarts.
 */
class CompactionQuarantineTest {

    @TempDir
    Path tmp;

    @Test
    void aDamagedInputIsMovedAsideAndTheRestCompacts() throws IOException {
        Path dir = tmp.resolve("d");
        long version = 1L << 40;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            for (String k : new String[] {"a", "b", "c"}) {
                engine.apply(Entry.value(Keys.utf8(k), ++version, Keys.utf8("value-" + k)));
                engine.flush();
            }
            List<Path> tables;
            try (Stream<Path> files = Files.list(dir)) {
                tables = files.filter(p -> p.getFileName().toString().endsWith(".sst"))
                        .sorted()
                        .toList();
            }
            assertThat(tables).hasSize(3);
            Path damaged = tables.get(1); // holds b
            try (FileChannel ch = FileChannel.open(damaged, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                try (FileChannel r = FileChannel.open(damaged, StandardOpenOption.READ)) {
                    r.read(b, 0);
                }
                b.put(0, (byte) (b.get(0) ^ 0x5A)).position(0);
                ch.write(b, 0); // the first entry's checksum, in place (the file stays mapped)
            }

            assertThatThrownBy(engine::compactAll)
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining(damaged.getFileName().toString());
            assertThat(engine.stats().quarantinedTables()).isEqualTo(1);
            assertThat(damaged).doesNotExist();
            assertThat(dir.resolve(FileNames.QUARANTINE).resolve(damaged.getFileName()))
                    .exists();
            assertThat(engine.tableCount()).isEqualTo(2);
            assertThat(engine.compactAll()).isEqualTo(2); // not retried: the rest merge
            assertThat(engine.get(Keys.utf8("a"))).isNotNull();
            assertThat(engine.get(Keys.utf8("c"))).isNotNull();
            assertThat(engine.get(Keys.utf8("b"))).isNull();
        }
        try (LsmEngine reopened = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(reopened.get(Keys.utf8("a"))).isNotNull();
            assertThat(reopened.get(Keys.utf8("c"))).isNotNull();
        }
    }
}
