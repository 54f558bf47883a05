package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.ringbase.os.NativeFile;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reads of block tables (versions 2 and 3) with {@code pread(2)}, as when a table is out of the page cache
 * ({@link ReadPathGauge}): point reads, and the first blocks of range iterators, must find exactly what
 * reads through the mapping find, and check the same checksums.
 */
class BlockTablePreadTest {

    @TempDir
    Path dir;

    @BeforeEach
    void preadAvailable() {
        assumeThat(NativeFile.available())
                .as("pread through the foreign function API (Linux)")
                .isTrue();
    }

    private static String key(int i) {
        return String.format("key%06d", i);
    }

    /** Entries with values that LZ4 compresses or not; with a value larger than a block every 500th. */
    private static List<Entry> entries(int n, boolean compressible, boolean large) {
        SplittableRandom rnd = new SplittableRandom(3);
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[large && i % 500 == 250 ? 40_000 : 1 + rnd.nextInt(600)];
            if (compressible) {
                Arrays.fill(v, (byte) ('a' + i % 5));
            } else {
                rnd.nextBytes(v);
            }
            out.add(i % 97 == 5 ? Entry.tombstone(utf8(key(i)), 100 + i) : Entry.value(utf8(key(i)), 100 + i, v));
        }
        return out;
    }

    private static void preads(SstableReader r) {
        ReadPaths.forcePread(r);
    }

    static Stream<Arguments> tables() {
        List<Arguments> out = new ArrayList<>();
        for (int version : new int[] {2, 3}) {
            for (boolean compressible : new boolean[] {true, false}) {
                for (long cacheBytes : new long[] {0, 1 << 20}) {
                    out.add(Arguments.of(version, compressible, cacheBytes));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "version {0}, compressible {1}, block cache {2} bytes")
    @MethodSource("tables")
    void preadReadsFindWhatReadsThroughTheMappingFind(int version, boolean compressible, long cacheBytes)
            throws IOException {
        Path file = dir.resolve("t.sst");
        List<Entry> entries = entries(3000, compressible, version == 3);
        Tables.write(file, entries, entries.size(), SstableWriter.DEFAULT_BLOCK_BYTES, version);
        try (SstableReader r = SstableReader.open(file, new BlockCache(cacheBytes))) {
            assertThat(r.readPathGauge().preads())
                    .as("a new table is read through its mapping")
                    .isFalse();
            EntryLocation at = new EntryLocation();
            SplittableRandom rnd = new SplittableRandom(version * 10 + (compressible ? 1 : 0));
            for (int n = 0; n < 1500; n++) {
                preads(r);
                int i = rnd.nextInt(entries.size());
                byte[] k = utf8(key(i));
                assertThat(r.locate(k, EntryFormat.keyPrefix(k), at)).as(key(i)).isTrue();
                Entry want = entries.get(i);
                assertThat(EntryFormat.read(
                                at.segment(), at.offset(), at.segment().byteSize()))
                        .isEqualTo(want);
                if (want.value() == null || want.value().length < 40_000) {
                    assertThat(r.inMapping(at.segment()))
                            .as("read with pread, not in the mapping")
                            .isFalse();
                }
                byte[] absent = utf8(key(i) + "x");
                assertThat(r.locate(absent, EntryFormat.keyPrefix(absent), at)).isFalse();
            }
            assertThat(r.get(utf8("zzz"))).isNull();
            assertThat(r.get(utf8("a"))).isNull();
            for (int n = 0; n < 40; n++) {
                preads(r);
                int from = rnd.nextInt(entries.size());
                int to = Math.min(entries.size(), from + rnd.nextInt(300)); // past WALK_PREADS blocks, often
                assertThat(Tables.scan(r, utf8(key(from)), utf8(key(to))))
                        .containsExactlyElementsOf(entries.subList(from, to));
            }
            preads(r);
            assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(entries);
            assertThat(Tables.drainCursor(r)).containsExactlyElementsOf(entries);
        }
    }

    @Test
    void aLargeEntryIsReadInPlaceInTheMappingEvenWhenTheTableIsReadWithPread() throws IOException {
        Path file = dir.resolve("l.sst");
        List<Entry> entries = List.of(
                Entry.value(utf8("a"), 1, utf8("small")),
                Entry.value(utf8("b"), 2, new byte[100_000]),
                Entry.value(utf8("c"), 3, utf8("small too")));
        Tables.write(file, entries);
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.readsWithPread()).isFalse();
            preads(r);
            assertThat(r.readsWithPread())
                    .as("what the engine's statistics count")
                    .isTrue();
            EntryLocation at = new EntryLocation();
            assertThat(r.locate(utf8("b"), EntryFormat.keyPrefix(utf8("b")), at))
                    .isTrue();
            assertThat(r.inMapping(at.segment())).isTrue();
            assertThat(EntryFormat.read(at.segment(), at.offset(), at.segment().byteSize()))
                    .isEqualTo(entries.get(1));
            assertThat(r.get(utf8("c"))).isEqualTo(entries.get(2));
        }
    }

    @ParameterizedTest(name = "compressible {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aDamagedBlockReadWithPreadFailsItsChecksum(boolean compressible) throws IOException {
        Path file = dir.resolve("d.sst");
        List<Entry> entries = entries(2000, compressible, false);
        Tables.write(file, entries);
        Tables.flip(file, 3, 0x01); // inside block 0's payload
        try (SstableReader r = SstableReader.open(file)) {
            preads(r);
            assertThatThrownBy(() -> r.get(utf8(key(0))))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("block 0 checksum mismatch");
            preads(r);
            assertThat(r.get(utf8(key(1999)))).isEqualTo(entries.get(1999));
            preads(r);
            assertThatThrownBy(() -> Tables.scan(r, utf8(key(0)), null))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void aReleasedTableLeavesNoDescriptorOpen() throws IOException {
        Path fds = Path.of("/proc/self/fd");
        assumeThat(Files.isDirectory(fds)).isTrue();
        Path file = dir.resolve("f.sst");
        Tables.write(file, entries(100, true, false));
        int tables = 64;
        long before = count(fds);
        List<SstableReader> readers = new ArrayList<>();
        for (int i = 0; i < tables; i++) {
            readers.add(SstableReader.open(file));
        }
        long open = count(fds);
        assertThat(open - before).as("one descriptor per open table").isGreaterThanOrEqualTo(tables);
        for (SstableReader r : readers) {
            assertThat(r.get(utf8(key(7)))).isNotNull();
            r.close();
        }
        assertThat(count(fds)).as("descriptors after release").isLessThanOrEqualTo(open - tables);
    }

    private static long count(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    /** {@code posix_fadvise(POSIX_FADV_DONTNEED)} of the whole file: its pages no process maps leave the page cache. */
    private static void dropFromPageCache(Path file) throws Throwable {
        java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
        var lookup = linker.defaultLookup();
        java.lang.invoke.MethodHandle open = linker.downcallHandle(
                lookup.find("open").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(
                        java.lang.foreign.ValueLayout.JAVA_INT,
                        java.lang.foreign.ValueLayout.ADDRESS,
                        java.lang.foreign.ValueLayout.JAVA_INT),
                java.lang.foreign.Linker.Option.firstVariadicArg(2));
        java.lang.invoke.MethodHandle fadvise = linker.downcallHandle(
                lookup.find("posix_fadvise").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(
                        java.lang.foreign.ValueLayout.JAVA_INT,
                        java.lang.foreign.ValueLayout.JAVA_INT,
                        java.lang.foreign.ValueLayout.JAVA_LONG,
                        java.lang.foreign.ValueLayout.JAVA_LONG,
                        java.lang.foreign.ValueLayout.JAVA_INT));
        java.lang.invoke.MethodHandle close = linker.downcallHandle(
                lookup.find("close").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(
                        java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT));
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            int fd = (int) open.invokeExact(arena.allocateFrom(file.toString()), 0);
            assertThat(fd).as("open(2) of %s", file).isNotNegative();
            int rc = (int) fadvise.invokeExact(fd, 0L, 0L, 4); // POSIX_FADV_DONTNEED
            int closed = (int) close.invokeExact(fd);
            assertThat(closed).as("close(2)").isZero();
            assertThat(rc).as("posix_fadvise DONTNEED").isZero();
        }
    }

    @Test
    void prefetchStartsReadingTheSeekBlocksAndNothingElse() throws Throwable {
        Path file = dir.resolve("p.sst");
        List<Entry> entries = entries(3000, false, false);
        Tables.write(file, entries);
        Footer f = Tables.footer(file);
        try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
            w.force(true); // dirty or in-writeback pages would stay in the page cache
        }
        try (SstableReader r = SstableReader.open(file, BlockCache.NONE, new PinnedSections(1 << 20));
                java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file);
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            // the middle half of the data section: the pages near the footer stay mapped (fault-around of
            // the footer's read), so they stay in the page cache
            long from = (f.dataLength() / 4) & ~4095L;
            java.lang.foreign.MemorySegment middle =
                    ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, from, f.dataLength() / 2, arena);
            dropFromPageCache(file);
            assertThat(io.ringbase.os.PageResidency.residentFraction(middle))
                    .as("no page of the middle in the page cache")
                    .isZero();
            r.prefetch(utf8(key(1500)));
            assertThat(io.ringbase.os.PageResidency.residentFraction(middle))
                    .as("through the mapping, a table's reads leave prefetching to the kernel")
                    .isZero();

            preads(r);
            r.prefetch(utf8(key(1500)));
            org.awaitility.Awaitility.await()
                    .pollInSameThread() // the mapping's arena is confined to this thread
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> io.ringbase.os.PageResidency.residentFraction(middle) > 0);
            double resident = io.ringbase.os.PageResidency.residentFraction(middle) * middle.byteSize();
            assertThat(resident)
                    .as("the two blocks from the seek's (about 8 KiB), not the table (%d bytes)", f.dataLength())
                    .isBetween(4096.0, 4.0 * SstableWriter.DEFAULT_BLOCK_BYTES + 8192);
            assertThat(Tables.scan(r, utf8(key(1500)), utf8(key(1510))))
                    .containsExactlyElementsOf(entries.subList(1500, 1510));
        }
    }
}
