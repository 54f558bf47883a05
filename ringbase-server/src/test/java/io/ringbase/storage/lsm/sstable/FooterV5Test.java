package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Layouts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The format version 5 footer (docs/format.md, section 4.11): its expiry statistics, its size and
 * offsets, its checksum, and that a version 4 table, which has none, still opens.
 */
class FooterV5Test {

    @TempDir
    Path dir;

    private static final long EXPIRY = 1_800_000_000_000L;

    /** A value, a tombstone with an expiry (not counted), two expiring values, and a plain value. */
    private static final List<Entry> ENTRIES = List.of(
            Entry.value(utf8("a"), 10, utf8("plain")),
            new Entry(utf8("b"), 11, EXPIRY + 5, null),
            new Entry(utf8("c"), 12, EXPIRY + 2, utf8("ttl")),
            new Entry(utf8("d"), 13, EXPIRY + 1, utf8("ttl")),
            Entry.value(utf8("e"), 14, utf8("plain")));

    private Path write(int version) throws IOException {
        Path file = dir.resolve("v" + version + ".sst");
        Tables.write(file, ENTRIES, ENTRIES.size(), SstableWriter.DEFAULT_BLOCK_BYTES, version);
        return file;
    }

    private static long u64(Path file, long offset) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return ByteBuffer.wrap(all).order(Layouts.ORDER).getLong((int) offset);
    }

    @Test
    void theFooterCountsExpiringValuesAndKeepsTheLatestExpiry() throws IOException {
        Path file = write(5);
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.formatVersion()).isEqualTo(5);
            assertThat(r.tombstoneCount()).isEqualTo(1);
            assertThat(r.expiringCount())
                    .as("the tombstone's expiry is not counted")
                    .isEqualTo(2);
            assertThat(r.maxExpiresAt()).isEqualTo(EXPIRY + 2);
            assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(ENTRIES);
        }
        // byte for byte as section 4.11 lays it out: 120 bytes, the new fields at 80 and 88, version at 104
        long footerAt = Files.size(file) - 120;
        assertThat(Footer.V5_SIZE).isEqualTo(120);
        assertThat(u64(file, footerAt + 80)).isEqualTo(2);
        assertThat(u64(file, footerAt + 88)).isEqualTo(EXPIRY + 2);
        assertThat(u64(file, footerAt + 104) & 0xFFFF_FFFFL).isEqualTo(5);
        assertThat(u64(file, footerAt + 112)).isEqualTo(Footer.MAGIC);
        Footer footer = Tables.footer(file);
        assertThat(footer.bloomOffset() + footer.bloomLength()).isEqualTo(footerAt);
    }

    @Test
    void aTableWithoutExpiringValuesReportsZeroAndAnEmptyTableToo() throws IOException {
        Path file = dir.resolve("plain.sst");
        Tables.write(file, List.of(Entry.value(utf8("k"), 1, utf8("v")), Entry.tombstone(utf8("l"), 2)));
        Path empty = dir.resolve("empty.sst");
        Tables.write(empty, List.of());
        for (Path p : List.of(file, empty)) {
            try (SstableReader r = SstableReader.open(p)) {
                assertThat(r.formatVersion()).isEqualTo(Footer.LATEST_VERSION);
                assertThat(r.expiringCount()).isZero();
                assertThat(r.maxExpiresAt()).isZero();
            }
        }
    }

    @ParameterizedTest(name = "footer byte {0}")
    @ValueSource(ints = {80, 87, 88, 95, 96, 104, 108})
    void aFlippedFooterByteFailsOpen(int offset) throws IOException {
        Path file = write(5);
        Tables.flip(file, Files.size(file) - 120 + offset, 0x01);
        assertThatThrownBy(() -> SstableReader.open(file))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("footer checksum mismatch"); // at 104, version 5 reads as 4: a shorter footer
    }

    @Test
    void moreExpiringValuesThanValuesFailOpenEvenWithAValidChecksum() throws IOException {
        Path file = write(5);
        long footerAt = Files.size(file) - 120;
        setAndReseal(file, footerAt, 80, 5); // 5 entries, 1 tombstone: at most 4 expiring values
        assertThatThrownBy(() -> SstableReader.open(file))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("footer sections do not tile the file");
    }

    @Test
    void aLatestExpiryWithoutExpiringValuesFailsOpen() throws IOException {
        Path file = write(5);
        long footerAt = Files.size(file) - 120;
        setAndReseal(file, footerAt, 80, 0);
        assertThatThrownBy(() -> SstableReader.open(file)).isInstanceOf(CorruptionException.class);
    }

    @Test
    void aVersion4TableStillOpensWithoutExpiryStatistics() throws IOException {
        Path file = write(4);
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.formatVersion()).isEqualTo(4);
            assertThat(r.expiringCount()).isZero();
            assertThat(r.maxExpiresAt()).isZero();
            assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(ENTRIES);
        }
        Footer footer = Tables.footer(file);
        assertThat(footer.size()).isEqualTo(104);
        assertThat(footer.bloomOffset() + footer.bloomLength()).isEqualTo(Files.size(file) - 104);
    }

    @Test
    void onlyVersion5CarriesExpiryStatistics() {
        assertThatThrownBy(() -> Footer.blocks(4, 0, 0, 0, 1, 0, 1, 1, 1, 1, 5, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("format version 4 has no expiry statistics");
    }

    /** Sets the u64 at {@code field} of the version 5 footer at {@code footerAt} and recomputes its checksum. */
    private static void setAndReseal(Path file, long footerAt, int field, long value) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(Layouts.ORDER);
        b.putLong((int) footerAt + field, value);
        CRC32C crc = new CRC32C();
        crc.update(bytes, (int) footerAt, 108);
        b.putInt((int) footerAt + 108, (int) crc.getValue());
        Files.write(file, bytes);
    }
}
