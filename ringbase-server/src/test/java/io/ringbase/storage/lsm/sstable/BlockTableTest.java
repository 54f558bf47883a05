package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Format versions 2 to 5 (docs/format.md, sections 4.8 to 4.11): blocks, compression, compact entries,
 * the sparse index and their checks.
 */
class BlockTableTest {

    @TempDir
    Path dir;

    private static String key(int i) {
        return String.format("key%06d", i);
    }

    private static List<Entry> entries(int n, int valueBytes, boolean compressible) {
        SplittableRandom rnd = new SplittableRandom(1);
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[valueBytes];
            if (compressible) {
                Arrays.fill(v, (byte) ('a' + i % 3));
            } else {
                rnd.nextBytes(v);
            }
            out.add(Entry.value(utf8(key(i)), 100 + i, v));
        }
        return out;
    }

    private static long rawBytes(List<Entry> entries) {
        return entries.stream().mapToLong(EntryFormat::encodedSize).sum();
    }

    @Test
    void compressibleBlocksAreStoredLz4AndReadBack() throws IOException {
        Path file = dir.resolve("c.sst");
        List<Entry> entries = entries(2000, 100, true);
        SstableSummary summary = Tables.write(file, entries);
        assertThat(summary.fileBytes()).as("LZ4 blocks").isLessThan(rawBytes(entries) / 4);
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.formatVersion()).isEqualTo(Footer.LATEST_VERSION);
            assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(entries);
            EntryLocation at = new EntryLocation();
            for (int i = 0; i < entries.size(); i += 37) {
                byte[] k = utf8(key(i));
                assertThat(r.locate(k, EntryFormat.keyPrefix(k), at)).isTrue();
                assertThat(r.inMapping(at.segment()))
                        .as("a decompressed block is in the location's own buffer")
                        .isFalse();
                assertThat(at.segment().isNative())
                        .as("native, as everything the engine reads")
                        .isTrue();
                assertThat(r.get(k)).isEqualTo(entries.get(i));
            }
            byte[] absent = utf8("key000010x");
            assertThat(r.get(absent)).isNull();
            assertThat(r.get(utf8("zzz"))).isNull();
            assertThat(Tables.scan(r, utf8(key(500)), utf8(key(510))))
                    .containsExactlyElementsOf(entries.subList(500, 510));
        }
    }

    @Test
    void incompressibleVersion2BlocksAreStoredRawAndReadInPlace() throws IOException {
        Path file = dir.resolve("r.sst");
        List<Entry> entries = entries(2000, 1000, false); // headers and keys are 3%: LZ4 cannot save an eighth
        SstableSummary summary = Tables.write(file, entries, entries.size(), SstableWriter.DEFAULT_BLOCK_BYTES, 2);
        assertThat(summary.fileBytes()).isGreaterThan(rawBytes(entries));
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.formatVersion()).isEqualTo(2);
            EntryLocation at = new EntryLocation();
            byte[] k = utf8(key(1234));
            assertThat(r.locate(k, EntryFormat.keyPrefix(k), at)).isTrue();
            assertThat(r.inMapping(at.segment()))
                    .as("a raw block is read in the mapping")
                    .isTrue();
            assertThat(EntryFormat.read(at.segment(), at.offset(), at.segment().byteSize()))
                    .isEqualTo(entries.get(1234));
            assertThat(Tables.scan(r, utf8(key(700)), utf8(key(720))))
                    .containsExactlyElementsOf(entries.subList(700, 720));
            assertThat(Tables.drainCursor(r)).containsExactlyElementsOf(entries);
        }
    }

    @Test
    void version3StoresEachKeyAsWhatItDoesNotShareWithThePreviousOne() throws IOException {
        List<Entry> entries = entries(4000, 1000, false); // raw blocks: the saving is not LZ4's
        Path v2 = dir.resolve("v2.sst");
        Path v3 = dir.resolve("v3.sst");
        long v2Bytes = Tables.write(v2, entries, entries.size(), SstableWriter.DEFAULT_BLOCK_BYTES, 2)
                .fileBytes();
        long v3Bytes = Tables.write(v3, entries, entries.size(), SstableWriter.DEFAULT_BLOCK_BYTES, 3)
                .fileBytes();
        // per entry, version 2: a 25-byte header and the 9-byte key; version 3: lengths in 4 bytes, flags and
        // version in 9, and the key's last byte or two (the whole key at a restart point, one in 8)
        assertThat(v2Bytes - v3Bytes).as("bytes saved").isGreaterThanOrEqualTo(15L * entries.size());
        try (SstableReader r = SstableReader.open(v3)) {
            EntryLocation at = new EntryLocation();
            for (int i = 0; i < entries.size(); i += 7) {
                byte[] k = utf8(key(i));
                assertThat(r.locate(k, EntryFormat.keyPrefix(k), at)).isTrue();
                assertThat(EntryFormat.read(
                                at.segment(), at.offset(), at.segment().byteSize()))
                        .isEqualTo(entries.get(i));
            }
            assertThat(r.get(utf8("key000010x"))).isNull();
            assertThat(r.get(utf8("key0"))).isNull();
            assertThat(Tables.scan(r, utf8("key0017"), utf8("key0018")))
                    .containsExactlyElementsOf(entries.subList(1700, 1800));
            assertThat(Tables.scan(r, utf8("key001234x"), null)).containsExactlyElementsOf(entries.subList(1235, 4000));
            assertThat(Tables.drainCursor(r)).containsExactlyElementsOf(entries);
        }
    }

    @Test
    void anEntryLargerThanABlockGetsARawBlockOfItsOwn() throws IOException {
        Path file = dir.resolve("l.sst");
        byte[] big = new byte[100_000]; // zeros: compressible, yet stored raw
        List<Entry> entries = List.of(
                Entry.value(utf8("a"), 1, utf8("small")),
                Entry.value(utf8("b"), 2, big),
                Entry.value(utf8("c"), 3, utf8("small too")));
        SstableSummary summary = Tables.write(file, entries);
        assertThat(summary.fileBytes()).isGreaterThan(big.length);
        try (SstableReader r = SstableReader.open(file)) {
            EntryLocation at = new EntryLocation();
            assertThat(r.locate(utf8("b"), EntryFormat.keyPrefix(utf8("b")), at))
                    .isTrue();
            assertThat(r.inMapping(at.segment())).isTrue();
            assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(entries);
            assertThat(Tables.drainCursor(r)).containsExactlyElementsOf(entries);
        }
    }

    @Test
    void aDamagedBlockFailsReadsOfItsKeysOnly() throws IOException {
        Path file = dir.resolve("d.sst");
        List<Entry> entries = entries(2000, 100, true);
        Tables.write(file, entries);
        Tables.flip(file, 3, 0x01); // inside block 0's payload
        try (SstableReader r = SstableReader.open(file)) {
            assertThatThrownBy(() -> r.get(utf8(key(0))))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("block 0 checksum mismatch");
            assertThat(r.get(utf8(key(1999)))).isEqualTo(entries.get(1999));
            assertThatThrownBy(() -> Tables.scan(r, null, null))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void aDamagedCompressionCodeFailsTheBlockChecksum() throws IOException {
        Path file = dir.resolve("t.sst");
        Tables.write(file, List.of(Entry.value(utf8("only"), 1, new byte[200])));
        Footer footer = Tables.footer(file);
        Tables.flip(file, footer.dataLength() - BlockTable.TRAILER_SIZE, 0x02); // LZ4 (1) -> 3
        try (SstableReader r = SstableReader.open(file)) {
            assertThatThrownBy(() -> r.get(utf8("only")))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("checksum mismatch");
        }
    }

    @Test
    void aDamagedIndexFailsOpen() throws IOException {
        Path file = dir.resolve("i.sst");
        Tables.write(file, entries(100, 10, false));
        Footer footer = Tables.footer(file);
        Tables.flip(file, footer.indexOffset() + 5, 0x10);
        assertThatThrownBy(() -> SstableReader.open(file))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("index checksum mismatch");
    }

    @Test
    void theIndexHasOneEntryPerBlockNotPerEntry() throws IOException {
        Path file = dir.resolve("s.sst");
        List<Entry> entries = entries(10_000, 100, false); // ~130 B each: ~31 per 4 KiB block
        Tables.write(file, entries);
        Footer footer = Tables.footer(file);
        assertThat(footer.blockCount()).isBetween(10_000L / 40, 10_000L / 25);
        assertThat(footer.indexLength()).isLessThan(10_000L * 8 / 5); // version 1: 8 bytes per entry
    }

    @Test
    void keysSharingALongPrefixAreFoundAndKeysOutsideItAreNot() throws IOException {
        Path file = dir.resolve("p.sst");
        String prefix = "tenant-0042/user:";
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            entries.add(Entry.value(utf8(prefix + String.format("%08d", 2 * i)), i + 1, utf8("v" + i)));
        }
        Tables.write(file, entries, entries.size(), 512);
        try (SstableReader r = SstableReader.open(file)) {
            for (int i = 0; i < 3000; i++) {
                assertThat(r.get(utf8(prefix + String.format("%08d", 2 * i)))).isEqualTo(entries.get(i));
                assertThat(r.get(utf8(prefix + String.format("%08d", 2 * i + 1))))
                        .isNull();
            }
            // below, inside and above the shared prefix, and prefixes of it
            for (String k : List.of(
                    "",
                    "t",
                    "tenant-0041/zzz",
                    "tenant-0042",
                    "tenant-0042/user",
                    prefix,
                    "tenant-0042/user9",
                    "tenant-0043",
                    "u")) {
                assertThat(r.get(utf8(k))).as(k).isNull();
                int from = Keys.compare(utf8(k), entries.get(0).key()) <= 0
                        ? 0
                        : Keys.compare(utf8(k), entries.get(2999).key()) > 0 ? 3000 : -1;
                if (from >= 0) {
                    assertThat(Tables.scan(r, utf8(k), null))
                            .as(k)
                            .containsExactlyElementsOf(entries.subList(from, 3000));
                }
            }
            assertThat(Tables.scan(r, utf8(prefix + "00001000"), utf8(prefix + "00001011")))
                    .containsExactlyElementsOf(entries.subList(500, 506));
        }
    }

    @ParameterizedTest(name = "version {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void theEngineReadsOlderTablesAndCompactionRewritesThemInTheLatestVersion(int version) throws IOException {
        Path data = dir.resolve("engine");
        LsmOptions options = LsmOptions.defaults(data);
        List<Entry> first = entries(300, 50, false);
        try (LsmEngine engine = LsmEngine.open(options)) {
            for (Entry e : first.subList(0, 150)) {
                engine.apply(e);
            }
            engine.flush();
            for (Entry e : first.subList(150, 300)) {
                engine.apply(e);
            }
            engine.flush();
        }
        // rewrite every table as an earlier release wrote them, under the same name
        for (Path sst : tables(data)) {
            List<Entry> content;
            try (SstableReader r = SstableReader.open(sst)) {
                content = Tables.scan(r, null, null);
            }
            Files.delete(sst);
            if (version == 1) {
                Tables.writeV1(sst, content, content.size());
            } else {
                Tables.write(sst, content, content.size(), SstableWriter.DEFAULT_BLOCK_BYTES, version);
            }
        }
        assertThat(tables(data))
                .hasSize(2)
                .allSatisfy(p -> assertThat(version(p)).isEqualTo(version));
        try (LsmEngine engine = LsmEngine.open(options)) {
            for (Entry e : first) {
                assertThat(engine.get(e.key())).isEqualTo(e);
            }
            assertThat(engine.compactAll()).isEqualTo(2);
            assertThat(tables(data))
                    .hasSize(1)
                    .allSatisfy(p -> assertThat(version(p)).isEqualTo(Footer.LATEST_VERSION));
            for (Entry e : first) {
                assertThat(engine.get(e.key())).isEqualTo(e);
            }
        }
    }

    private static List<Path> tables(Path data) throws IOException {
        try (Stream<Path> files = Files.list(data)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".sst"))
                    .sorted()
                    .toList();
        }
    }

    private static int version(Path sst) {
        try (SstableReader r = SstableReader.open(sst)) {
            return r.formatVersion();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void locationsAreReusedWithoutGrowingPastACacheFrame() throws IOException {
        Path file = dir.resolve("g.sst");
        List<Entry> entries = entries(5000, 100, true);
        Tables.write(file, entries);
        try (SstableReader r = SstableReader.open(file)) {
            EntryLocation at = new EntryLocation();
            for (Entry e : entries) {
                assertThat(r.locate(e.key(), EntryFormat.keyPrefix(e.key()), at))
                        .isTrue();
            }
            MemorySegment buffer = at.bufferSegment();
            assertThat(buffer.byteSize())
                    .as("a cache frame, rounded up to 4 KiB")
                    .isLessThanOrEqualTo(12 * 1024);
        }
    }
}
