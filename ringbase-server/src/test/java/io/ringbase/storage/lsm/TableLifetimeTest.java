package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.MappedFiles;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSTable lifetime: a table that compaction replaced is unmapped as soon as no
 * reader holds it, so its deleted file's space comes back at once; a scan open across the compaction
 * keeps reading correct bytes and releases the old tables when it closes; readers, scans and compactions
 * racing never touch an unmapped table. Mappings are read from {@code /proc/self/maps}.
 */
class TableLifetimeTest {

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    private LsmOptions options() {
        // compaction only when asked (compactAll), so the test decides when tables are replaced
        return LsmOptions.defaults(tmp.resolve("d"))
                .withMemtableBytes(64 * 1024)
                .withCompaction(new CompactionOptions(32, 32, 32L << 20, 0.5, 1.5));
    }

    private static byte[] value(String key, long version) {
        return (key + "@" + version + "-" + "x".repeat(100)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The files of the data directory mapped now. */
    private List<String> dataMappings() throws IOException {
        return MappedFiles.under(tmp.resolve("d"));
    }

    private List<Path> sstables() throws IOException {
        try (var files = Files.list(tmp.resolve("d"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".sst"))
                    .sorted()
                    .toList();
        }
    }

    private void writeTables(LsmEngine engine, int tables, int keysPerTable) throws IOException {
        for (int t = 0; t < tables; t++) {
            for (int i = 0; i < keysPerTable; i++) {
                String key = String.format("k%05d", i * tables + t);
                long v = ++version;
                engine.apply(Entry.value(Keys.utf8(key), v, value(key, v)));
            }
            engine.flush();
        }
    }

    @Test
    void compactedTablesAreUnmappedAtOnceWhenNoReaderHoldsThem() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options())) {
            writeTables(engine, 4, 200);
            List<Path> inputs = sstables();
            assertThat(inputs).hasSize(4);
            assertThat(dataMappings()).hasSize(4);
            assertThat(engine.compactAll()).isEqualTo(4);
            List<Path> outputs = sstables();
            assertThat(outputs).hasSize(1).doesNotContainAnyElementsOf(inputs);
            assertThat(dataMappings())
                    .as("only the compaction's output is mapped")
                    .hasSize(1)
                    .allMatch(l -> l.contains(outputs.getFirst().getFileName().toString()))
                    .noneMatch(l -> l.contains("(deleted)"));
        }
        assertThat(dataMappings()).as("nothing mapped after close").isEmpty();
    }

    @Test
    void aScanOpenAcrossACompactionReadsTheOldTablesThenReleasesThem() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options())) {
            writeTables(engine, 4, 200);
            List<Path> inputs = sstables();
            List<Entry> seen = new ArrayList<>();
            try (CloseableIterator<Entry> scan = engine.scan(null, null, true)) {
                for (int i = 0; i < 10; i++) {
                    seen.add(scan.next());
                }
                assertThat(engine.compactAll()).isEqualTo(4);
                for (Path input : inputs) {
                    assertThat(input).doesNotExist();
                }
                assertThat(dataMappings())
                        .as("the scan's view keeps the deleted inputs mapped")
                        .filteredOn(l -> l.contains("(deleted)"))
                        .hasSize(4);
                while (scan.hasNext()) {
                    seen.add(scan.next());
                }
            }
            assertThat(seen).hasSize(800);
            for (int i = 0; i < seen.size(); i++) {
                Entry e = seen.get(i);
                String key = String.format("k%05d", i);
                assertThat(e.key()).isEqualTo(Keys.utf8(key));
                assertThat(e.value()).isEqualTo(value(key, e.version()));
            }
            assertThat(dataMappings())
                    .as("closing the scan unmapped the inputs")
                    .hasSize(1)
                    .noneMatch(l -> l.contains("(deleted)"));
        }
    }

    @Test
    void readsScansFlushesAndCompactionsRacingNeverTouchAnUnmappedTable() throws Exception {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        int keys = 2_000;
        try (LsmEngine engine = LsmEngine.open(options())) {
            writeTables(engine, 2, keys / 2);
            List<Thread> threads = new ArrayList<>();
            threads.add(Thread.ofPlatform()
                    .start(
                            () -> { // writer, flushing now and then
                                try {
                                    for (int round = 0; round < 40 && !stop.get(); round++) {
                                        for (int i = 0; i < 100; i++) {
                                            String key = String.format(
                                                    "k%05d",
                                                    ThreadLocalRandom.current().nextInt(keys));
                                            long v;
                                            synchronized (this) {
                                                v = ++version;
                                            }
                                            engine.apply(Entry.value(Keys.utf8(key), v, value(key, v)));
                                        }
                                        engine.flush();
                                    }
                                } catch (Throwable t) {
                                    failures.add(t);
                                }
                            }));
            threads.add(Thread.ofPlatform()
                    .start(
                            () -> { // compactions, as fast as they go
                                try {
                                    for (int round = 0; round < 15 && !stop.get(); round++) {
                                        engine.compactAll();
                                    }
                                } catch (Throwable t) {
                                    failures.add(t);
                                }
                            }));
            for (int r = 0; r < 2; r++) {
                threads.add(Thread.ofPlatform()
                        .start(
                                () -> { // point reads
                                    try {
                                        for (int n = 0; n < 20_000 && !stop.get(); n++) {
                                            String key = String.format(
                                                    "k%05d",
                                                    ThreadLocalRandom.current().nextInt(keys));
                                            Entry e = engine.get(Keys.utf8(key));
                                            if (e == null
                                                    || !java.util.Arrays.equals(e.value(), value(key, e.version()))) {
                                                throw new AssertionError("read of " + key + " gave " + e);
                                            }
                                        }
                                    } catch (Throwable t) {
                                        failures.add(t);
                                    }
                                }));
            }
            threads.add(Thread.ofPlatform()
                    .start(
                            () -> { // scans, some abandoned half way
                                try {
                                    for (int n = 0; n < 200 && !stop.get(); n++) {
                                        int from = ThreadLocalRandom.current().nextInt(keys);
                                        try (CloseableIterator<Entry> scan =
                                                engine.scan(Keys.utf8(String.format("k%05d", from)), null, true)) {
                                            int limit =
                                                    ThreadLocalRandom.current().nextInt(300);
                                            for (int i = 0; i < limit && scan.hasNext(); i++) {
                                                Entry e = scan.next();
                                                String key =
                                                        new String(e.key(), java.nio.charset.StandardCharsets.UTF_8);
                                                if (!java.util.Arrays.equals(e.value(), value(key, e.version()))) {
                                                    throw new AssertionError("scan gave " + e);
                                                }
                                            }
                                        }
                                    }
                                } catch (Throwable t) {
                                    failures.add(t);
                                }
                            }));
            for (Thread t : threads) {
                t.join(120_000);
                if (t.isAlive()) {
                    stop.set(true);
                    assertThat(t.join(Duration.ofSeconds(30)))
                            .as("%s stopped", t)
                            .isTrue();
                }
            }
            assertThat(failures).isEmpty();
            // a flush's failure is retried by the flush thread and may never reach a writer: counted here, so
            // that a table left mapped by one is told apart from a reference a reader kept
            assertThat(engine.stats().diskErrors())
                    .as("flush and compaction failures (the log names them)")
                    .isZero();
            assertThat(dataMappings())
                    .as("one mapping per live table once no reader holds an old view")
                    .hasSize(engine.tableCount())
                    .noneMatch(l -> l.contains("(deleted)"));
        }
        assertThat(dataMappings()).as("nothing mapped after close").isEmpty();
    }
}
