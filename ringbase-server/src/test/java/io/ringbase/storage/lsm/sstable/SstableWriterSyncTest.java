package io.ringbase.storage.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large table is synced as it is written, every {@link SstableWriter#SYNC_EVERY_BYTES}, not only at the
 * end: its dirty pages never pile up to the table's size (RocksDB's {@code bytes_per_sync}).
 */
class SstableWriterSyncTest {

    @TempDir
    Path tmp;

    @Test
    void aLargeTableIsSyncedWhileItIsWritten() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        io.record(true);
        Path file = tmp.resolve("t.sst.tmp");
        Random random = new Random(3);
        long bytes = 0;
        int entries = 0;
        try (SstableWriter writer = new SstableWriter(io, file, 10_000)) {
            while (bytes < 3 * SstableWriter.SYNC_EVERY_BYTES) { // random values: LZ4 cannot shrink them
                byte[] value = new byte[4_000];
                random.nextBytes(value);
                writer.add(Entry.value(Keys.utf8(String.format("k%08d", entries++)), 1L << 40, value));
                bytes += value.length;
            }
            writer.finish();
        }
        long syncs = io.events().stream()
                .filter(e -> e.op() == Op.FORCE && e.path().equals(file))
                .count();
        assertThat(syncs)
                .as("fsyncs of the table: at least two while writing, one at the end")
                .isGreaterThanOrEqualTo(3);
    }
}
