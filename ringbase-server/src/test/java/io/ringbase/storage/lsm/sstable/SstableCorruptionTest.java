package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flips exact bytes of a format version 1 table and checks each reader rule of docs/format.md, section 4.6. */
class SstableCorruptionTest {

    @TempDir
    Path dir;

    Path file;
    Footer footer;
    long footerOffset;

    private static final List<Entry> ENTRIES = List.of(
            Entry.value(utf8("apple"), 1, utf8("red")),
            Entry.value(utf8("banana"), 2, utf8("yellow")),
            Entry.value(utf8("cherry"), 3, utf8("dark red")));

    @BeforeEach
    void writeTable() throws IOException {
        file = dir.resolve("t.sst");
        Tables.writeV1(file, ENTRIES, ENTRIES.size());
        footer = Tables.footer(file);
        footerOffset = Files.size(file) - Footer.V1_SIZE;
    }

    @Test
    void flippedFooterByteFailsOpen() throws IOException {
        Tables.flip(file, footerOffset + 40, 0x01); // entryCount
        assertOpenFails("footer checksum mismatch");
    }

    @Test
    void flippedFooterChecksumFailsOpen() throws IOException {
        Tables.flip(file, footerOffset + 84, 0x80);
        assertOpenFails("footer checksum mismatch");
    }

    @Test
    void flippedIndexByteFailsOpen() throws IOException {
        Tables.flip(file, footer.indexOffset() + 8, 0x01); // low byte of entry 1's offset
        assertOpenFails("index checksum mismatch");
    }

    @Test
    void flippedBloomHeaderByteFailsOpen() throws IOException {
        Tables.flip(file, footer.bloomOffset(), 0x40); // bitCount
        assertOpenFails("Bloom filter checksum mismatch");
    }

    @Test
    void flippedBloomBitFailsOpen() throws IOException {
        Tables.flip(file, footer.bloomOffset() + BloomFilter.HEADER_SIZE + 3, 0x10);
        assertOpenFails("Bloom filter checksum mismatch");
    }

    @Test
    void truncatedFileFailsOpen() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(file) - 1);
        }
        assertOpenFails("bad magic");
    }

    @Test
    void fileShorterThanFooterFailsOpen() throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        byte[] shortFile = new byte[40]; // the footer's last 16 bytes (version, crc, magic) intact, the rest cut
        System.arraycopy(
                bytes,
                bytes.length - Footer.TAIL_SIZE,
                shortFile,
                shortFile.length - Footer.TAIL_SIZE,
                Footer.TAIL_SIZE);
        Files.write(file, shortFile);
        assertOpenFails("shorter than the 96-byte footer of format version 1");
    }

    @Test
    void emptyFileFailsOpen() throws IOException {
        Path empty = Files.createFile(dir.resolve("empty.sst"));
        assertThatThrownBy(() -> SstableReader.open(empty)).isInstanceOf(CorruptionException.class);
    }

    @Test
    void wrongMagicFailsOpen() throws IOException {
        Tables.overwrite(file, footerOffset + 88, utf8("NOTATABL"));
        assertOpenFails("bad magic");
    }

    @Test
    void unknownVersionFailsOpen() throws IOException {
        Tables.overwrite(file, footerOffset + 80, new byte[] {6, 0, 0, 0});
        assertOpenFails("unsupported SSTable format version 6");
    }

    @Test
    void flippedValueByteFailsGetAndIterationOfThatEntryOnly() throws IOException {
        long record = Tables.recordOffset(file, 1);
        Tables.flip(file, record + 4 + EntryFormat.HEADER_SIZE + "banana".length() + 2, 0x01);
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.get(utf8("apple"))).isEqualTo(ENTRIES.get(0));
            assertThat(r.get(utf8("cherry"))).isEqualTo(ENTRIES.get(2));
            assertThatThrownBy(() -> r.get(utf8("banana")))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("at byte " + record)
                    .hasMessageContaining("entry 1 checksum mismatch");

            Iterator<Entry> it = r.iterator(null, null);
            assertThat(it.next()).isEqualTo(ENTRIES.get(0));
            assertThatThrownBy(it::hasNext)
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void flippedEntryChecksumFailsGet() throws IOException {
        long record = Tables.recordOffset(file, 2);
        Tables.flip(file, record, 0x01);
        try (SstableReader r = SstableReader.open(file)) {
            assertThatThrownBy(() -> r.get(utf8("cherry"))).isInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void damagedKeyDoesNotTurnAHitIntoASilentMiss() throws IOException {
        long record = Tables.recordOffset(file, 1);
        Tables.flip(file, record + 4 + EntryFormat.HEADER_SIZE, 0x20); // 'b' -> 'B', now sorts first
        try (SstableReader r = SstableReader.open(file)) {
            assertThatThrownBy(() -> r.get(utf8("banana"))).isInstanceOf(CorruptionException.class);
            assertThatThrownBy(() -> Tables.scan(r, utf8("b"), null))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void damagedEntryHeaderFailsGetAsCorruption() throws IOException {
        long record = Tables.recordOffset(file, 1);
        Tables.flip(file, record + 4 + 17 + 3, 0x7F); // keyLength becomes huge
        try (SstableReader r = SstableReader.open(file)) {
            assertThatThrownBy(() -> r.get(utf8("banana"))).isInstanceOf(CorruptionException.class);
        }
    }

    private void assertOpenFails(String message) {
        assertThatThrownBy(() -> SstableReader.open(file))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining(message);
    }
}
