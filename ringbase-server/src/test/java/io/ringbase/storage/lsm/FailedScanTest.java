package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.MappedFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scan that fails while it opens its sources (a damaged block read by an SSTable's range iterator as
 * it positions itself, or by the merge as it takes each source's first entry) gives its view back: the
 * view's memtables are freed and its tables unmapped once the engine closes, as if the scan had never
 * run. Mappings are read from {@code /proc/self/maps}.
 */
class FailedScanTest {

    @TempDir
    Path tmp;

    /**
     * {@code start} "a": the damaged table's iterator fails in its constructor, positioning in its first
     * block; {@code start} empty (no bound): the merge fails taking the damaged table's first entry.
     */
    @ParameterizedTest
    @ValueSource(strings = {"a", ""})
    void aScanThatFailsWhileOpeningReleasesItsView(String start) throws IOException {
        Path dir = tmp.resolve("d");
        long version = 1L << 40;
        LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir));
        try {
            for (String k : new String[] {"a", "b", "c"}) {
                engine.apply(Entry.value(Keys.utf8(k), ++version, Keys.utf8("value-" + k)));
                engine.flush();
            }
            engine.apply(Entry.value(Keys.utf8("d"), ++version, Keys.utf8("in the memtable")));
            damageFirstByte(sstables(dir).get(1)); // holds b

            byte[] from = start.isEmpty() ? null : Keys.utf8(start);
            assertThatThrownBy(() -> engine.scan(from, null, true))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptionException.class);
        } finally {
            engine.close();
        }
        assertThat(MappedFiles.under(dir))
                .as("the failed scan's view kept no table mapped after close")
                .isEmpty();
        assertThat(engine.memtableNativeBytes())
                .as("the failed scan's view kept no memtable after close")
                .isZero();
    }

    private static List<Path> sstables(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".sst"))
                    .sorted()
                    .toList();
        }
    }

    /** Flips the first entry's checksum in place; the file stays mapped, so reads see it. */
    private static void damageFirstByte(Path table) throws IOException {
        try (FileChannel ch = FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, 0);
            b.put(0, (byte) (b.get(0) ^ 0x5A)).position(0);
            ch.write(b, 0);
        }
    }
}
