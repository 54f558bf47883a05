package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.MappedFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SstableRoundTripTest {

    @TempDir
    Path dir;

    private static Entry value(String key, long version, String value) {
        return Entry.value(utf8(key), version, utf8(value));
    }

    /** b, d, f, h with values, a tombstone at f. */
    private List<Entry> small() {
        return List.of(value("b", 10, "B"), value("d", 11, "D"), Entry.tombstone(utf8("f"), 12), value("h", 13, "H"));
    }

    @Test
    void roundTripKeepsValuesTombstonesExpiriesEmptyValuesAndHugeKeysAndValues() throws IOException {
        byte[] bigKey = new byte[Entry.MAX_KEY_BYTES];
        Arrays.fill(bigKey, (byte) 'k');
        byte[] bigValue = new byte[4 << 20];
        for (int i = 0; i < bigValue.length; i++) {
            bigValue[i] = (byte) (i * 31);
        }
        List<Entry> entries = new ArrayList<>(List.of(
                value("a", 5, "alpha"),
                Entry.tombstone(utf8("b"), 7),
                new Entry(utf8("c"), 9, 1_700_000_000_000L, utf8("expiring")),
                Entry.value(utf8("d"), 11, new byte[0]),
                new Entry(utf8("e"), 3, 1_700_000_000_001L, null),
                Entry.value(bigKey, 20, utf8("big key")),
                Entry.value(utf8("m"), 21, bigValue),
                Entry.value(new byte[] {(byte) 0xFF}, 2, utf8("high byte sorts last"))));
        Path file = dir.resolve("t.sst");

        SstableSummary summary = Tables.write(file, entries);

        assertThat(summary).isEqualTo(new SstableSummary(8, Files.size(file), 2, 21, 2));
        assertThat(Files.exists(dir.resolve("t.sst.idx")))
                .as("side file deleted")
                .isFalse();
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.entryCount()).isEqualTo(8);
            assertThat(r.fileBytes()).isEqualTo(summary.fileBytes());
            assertThat(r.minVersion()).isEqualTo(2);
            assertThat(r.maxVersion()).isEqualTo(21);
            assertThat(r.tombstoneCount()).isEqualTo(2);
            assertThat(r.path()).isEqualTo(file);
            for (Entry e : entries) {
                assertThat(r.get(e.key())).isEqualTo(e);
            }
            assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(entries);
        }
    }

    @Test
    void getOfAbsentKeysReturnsNull() throws IOException {
        Path file = dir.resolve("t.sst");
        Tables.write(file, small());
        try (SstableReader r = SstableReader.open(file)) {
            for (String absent : List.of("", "a", "c", "e", "g", "i", "bb", "b\0")) {
                assertThat(r.get(utf8(absent))).as(absent).isNull();
            }
            assertThat(r.get(utf8("f"))).isEqualTo(Entry.tombstone(utf8("f"), 12));
        }
    }

    @Test
    void iteratorHonoursStartAndEndBoundsOnAndBetweenKeys() throws IOException {
        Path file = dir.resolve("t.sst");
        Tables.write(file, small());
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(keys(r, "b", "h")).containsExactly("b", "d", "f");
            assertThat(keys(r, "c", "g")).containsExactly("d", "f");
            assertThat(keys(r, "d", "d")).isEmpty();
            assertThat(keys(r, "d", "e")).containsExactly("d");
            assertThat(keys(r, "a", null)).containsExactly("b", "d", "f", "h");
            assertThat(keys(r, "", "a")).isEmpty();
            assertThat(keys(r, "a", "b")).isEmpty();
            assertThat(keys(r, "h", null)).containsExactly("h");
            assertThat(keys(r, "i", null)).isEmpty();
            assertThat(keys(r, "g", "z")).containsExactly("h");
            assertThat(keys(r, "f", "c")).as("start after end").isEmpty();
        }
    }

    @Test
    void emptyTableHasNoEntries() throws IOException {
        Path file = dir.resolve("t.sst");
        SstableSummary summary = Tables.write(file, List.of(), 0);
        assertThat(summary).isEqualTo(new SstableSummary(0, Files.size(file), 0, 0, 0));
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(r.entryCount()).isZero();
            assertThat(r.get(utf8("a"))).isNull();
            assertThat(Tables.scan(r, null, null)).isEmpty();
            assertThat(Tables.scan(r, utf8("a"), utf8("b"))).isEmpty();
        }
    }

    @Test
    void nonIncreasingKeyIsRejected() throws IOException {
        Path file = dir.resolve("t.sst");
        try (SstableWriter w = new SstableWriter(file, 3)) {
            w.add(value("b", 1, "x"));
            assertThatThrownBy(() -> w.add(value("b", 2, "y"))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> w.add(value("a", 2, "y"))).isInstanceOf(IllegalArgumentException.class);
            // unsigned order: 0x80 sorts after 'b' (0x62)
            w.add(Entry.value(new byte[] {(byte) 0x80}, 3, utf8("z")));
            assertThat(w.finish().entryCount()).isEqualTo(2);
        }
        try (SstableReader r = SstableReader.open(file)) {
            assertThat(Tables.scan(r, null, null)).extracting(Entry::version).containsExactly(1L, 3L);
        }
    }

    @Test
    void closingUnfinishedWriterDeletesTableAndSideFile() throws IOException {
        Path file = dir.resolve("t.sst.tmp");
        try (SstableWriter w = new SstableWriter(file, 10)) {
            w.add(value("a", 1, "x"));
        }
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void writerRefusesToOverwriteExistingFile() throws IOException {
        Path file = dir.resolve("t.sst.tmp");
        Files.write(file, new byte[] {1});
        assertThatThrownBy(() -> new SstableWriter(file, 1))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
        assertThat(Files.readAllBytes(file)).containsExactly(1);
    }

    @Test
    void addAfterFinishIsAnIllegalState() throws IOException {
        Path file = dir.resolve("t.sst");
        try (SstableWriter w = new SstableWriter(file, 1)) {
            w.finish();
            assertThatThrownBy(() -> w.add(value("a", 1, "x"))).isInstanceOf(IllegalStateException.class);
        }
        assertThat(file).exists();
    }

    @Test
    void aRetainedReaderOutlivesCloseAndDeletionAndTheLastReleaseUnmapsIt() throws IOException {
        Path file = dir.resolve("t.sst");
        Tables.write(file, small());
        SstableReader r = SstableReader.open(file);
        assertThat(r.tryRetain()).isTrue(); // a reader's reference, as a view takes one
        var it = r.iterator(null, null);
        r.close(); // the opener's reference
        Files.delete(file);
        assertThat(r.isMapped()).isTrue();
        assertThat(Tables.drain(it)).hasSize(4);
        assertThat(MappedFiles.under(file))
                .as("still mapped while a reference is held")
                .isNotEmpty();
        r.release();
        assertThat(r.isMapped()).isFalse();
        assertThat(MappedFiles.under(file))
                .as("/proc/self/maps after the last release")
                .isEmpty();
        assertThat(r.tryRetain()).as("no reference once unmapped").isFalse();
        assertThatThrownBy(() -> r.get(small().getFirst().key())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(r::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void millionSmallEntriesRoundTrip() throws IOException {
        int n = 1_000_000;
        Path file = dir.resolve("big.sst");
        try (SstableWriter w = new SstableWriter(file, n)) {
            for (int i = 0; i < n; i++) {
                w.add(Entry.value(key(i), i + 1, value(i)));
            }
            assertThat(w.finish().entryCount()).isEqualTo(n);
        }
        try (SstableReader r = SstableReader.open(file)) {
            long count = 0;
            try (var it = r.iterator(null, null)) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    if (e.version() != count + 1) {
                        throw new AssertionError("entry " + count + " is " + e);
                    }
                    count++;
                }
            }
            assertThat(count).isEqualTo(n);
            for (int i = 0; i < n; i += 997) {
                assertThat(r.get(key(i))).isEqualTo(Entry.value(key(i), i + 1, value(i)));
                assertThat(r.get(utf8("k" + i + "x"))).isNull();
            }
            assertThat(Tables.scan(r, key(500_000), key(500_010))).hasSize(10);
        }
    }

    @Test
    void concurrentReadersSeeTheSameEntries() throws Exception {
        int n = 20_000;
        Path file = dir.resolve("t.sst");
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            entries.add(Entry.value(key(i), i, value(i)));
        }
        Tables.write(file, entries);
        try (SstableReader r = SstableReader.open(file);
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int offset = t;
                futures.add(pool.submit(() -> {
                    for (int i = offset; i < n; i += 8) {
                        assertThat(r.get(key(i))).isEqualTo(entries.get(i));
                    }
                    assertThat(Tables.scan(r, null, null)).hasSize(n);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static byte[] key(int i) {
        return utf8(String.format("k%08d", i));
    }

    private static byte[] value(int i) {
        return new byte[] {(byte) i, (byte) (i >> 8)};
    }

    private static List<String> keys(SstableReader r, String start, String end) {
        return Tables.scan(r, utf8(start), end == null ? null : utf8(end)).stream()
                .map(e -> new String(e.key(), java.nio.charset.StandardCharsets.UTF_8))
                .toList();
    }
}
