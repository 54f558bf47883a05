package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.StorageEngineContractTest;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.testing.MemoryTempDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only our engine does: WAL recovery after a crash, torn WAL tails, compaction bounds, damaged or
 * missing files, and a model test across crashes. The contract both engines share (reads, writes,
 * restarts, scans, one engine per directory) is {@link StorageEngineContractTest}.
 */
class LsmEngineTest {

    @TempDir(factory = MemoryTempDir.class) // fsyncs by the thousand; no power loss is tested here
    Path tmp;

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private long version = 1L << 40;

    private LsmOptions options(Path dir) {
        return LsmOptions.defaults(dir).withWallClock(clock::get);
    }

    private Entry put(String k, String v) {
        return Entry.value(Keys.utf8(k), ++version, Keys.utf8(v));
    }

    /** The live value of {@code key} as UTF-8, or {@code null} if none (missing or a tombstone). */
    static String value(StorageEngine engine, String key) throws IOException {
        Entry e = engine.get(Keys.utf8(key));
        return e == null || e.isTombstone() ? null : new String(e.value(), StandardCharsets.UTF_8);
    }

    @Test
    void unflushedWritesAreRecoveredFromTheWalAfterACrash() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            for (int i = 0; i < 500; i++) {
                engine.apply(put("k" + i, "v" + i));
            }
            engine.apply(Entry.tombstone(Keys.utf8("k7"), ++version));
            CrashImage.copy(engine, dir, tmp.resolve("crash"));
        }
        try (LsmEngine engine = LsmEngine.open(options(tmp.resolve("crash")))) {
            assertThat(value(engine, "k0")).isEqualTo("v0");
            assertThat(value(engine, "k499")).isEqualTo("v499");
            assertThat(engine.get(Keys.utf8("k7")).isTombstone()).isTrue();
        }
    }

    @Test
    void tornWalTailIsIgnored() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            for (int i = 0; i < 100; i++) {
                engine.apply(put("k" + i, "v" + i));
            }
            CrashImage.copy(engine, dir, tmp.resolve("crash"));
        }
        Path crash = tmp.resolve("crash");
        Path wal;
        try (Stream<Path> files = Files.list(crash)) {
            // the segment with the records (the engine also keeps an empty spare segment ready)
            wal = files.filter(p -> p.getFileName().toString().startsWith("wal-"))
                    .max(java.util.Comparator.comparingLong(p -> p.toFile().length()))
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(wal);
        Files.write(wal, java.util.Arrays.copyOf(bytes, bytes.length - 3));
        try (LsmEngine engine = LsmEngine.open(options(crash))) {
            assertThat(value(engine, "k98")).isEqualTo("v98");
            assertThat(value(engine, "k99")).isNull();
        }
    }

    @Test
    void flushesAndCompactionsKeepEveryKeyAndBoundTheTableCount() throws Exception {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(options(dir).withMemtableBytes(64 * 1024))) {
            for (int i = 0; i < 20_000; i++) {
                engine.apply(put(String.format("k%06d", i), "value-" + i));
            }
            engine.flush();
            // universal keeps the oldest table and fewer than minThreshold per size step of the newer ones
            awaitTablesAtMost(engine, 2 * CompactionOptions.defaults().minThreshold());
            for (int i = 0; i < 20_000; i += 97) {
                assertThat(value(engine, String.format("k%06d", i))).isEqualTo("value-" + i);
            }
            List<String> keys = new ArrayList<>();
            try (var it = engine.scan(Keys.utf8("k000100"), Keys.utf8("k000200"), true)) {
                it.forEachRemaining(e -> keys.add(new String(e.key(), StandardCharsets.UTF_8)));
            }
            assertThat(keys).hasSize(100).first().isEqualTo("k000100");
        }
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            assertThat(value(engine, "k019999")).isEqualTo("value-19999");
        }
    }

    @Test
    void fullyCompactedTombstonesAndExpiredEntriesAreDropped() throws Exception {
        Path dir = tmp.resolve("d");
        CompactionOptions eager = new CompactionOptions(2, 32, 32L << 20, 0.5, 1.5);
        try (LsmEngine engine = LsmEngine.open(options(dir).withCompaction(eager))) {
            for (int i = 0; i < 1000; i++) {
                engine.apply(put("k" + i, "v"));
            }
            engine.flush();
            for (int i = 0; i < 1000; i++) {
                engine.apply(
                        i % 2 == 0
                                ? Entry.tombstone(Keys.utf8("k" + i), ++version)
                                : new Entry(Keys.utf8("k" + i), ++version, clock.get() + 10, Keys.utf8("short-lived")));
            }
            clock.addAndGet(1000);
            engine.flush();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(engine::tableCount, n -> n == 0);
            assertThat(engine.tableCount()).isZero();
            assertThat(engine.get(Keys.utf8("k1"))).isNull();
        }
    }

    @Test
    void randomizedOperationsMatchAModelAcrossCrashesAndRestarts() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            runModel(seed);
        }
    }

    private void runModel(long seed) throws Exception {
        Random rnd = new Random(seed);
        Path dir = tmp.resolve("model-" + seed);
        TreeMap<String, Entry> model = new TreeMap<>();
        LsmOptions opts = options(dir)
                .withMemtableBytes(16 * 1024)
                .withWalSync(rnd.nextBoolean() ? WalSyncPolicy.ALWAYS : WalSyncPolicy.PERIODIC);
        LsmEngine engine = LsmEngine.open(opts);
        int crashes = 0;
        try {
            for (int op = 0; op < 6000; op++) {
                int kind = StorageEngineContractTest.modelStep(
                        engine, model, rnd, clock, () -> ++version, "seed " + seed + " op " + op);
                if (kind < StorageEngineContractTest.MODEL_STEP_KINDS) {
                    continue; // done by modelStep
                }
                if (kind < 97) {
                    engine.flush();
                } else if (kind < 99) {
                    Path copy = CrashImage.copy(engine, dir, tmp.resolve("model-" + seed + "-crash-" + crashes++));
                    engine.close();
                    dir = copy;
                    engine = LsmEngine.open(opts.withDataDir(dir));
                } else {
                    engine.close();
                    engine = LsmEngine.open(opts.withDataDir(dir));
                }
            }
            StorageEngineContractTest.checkScan(engine, model, rnd, clock.get());
        } finally {
            engine.close();
        }
    }

    @Test
    void corruptSstableRefusesToStart() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            engine.apply(put("a", "1"));
        }
        Path sst;
        try (Stream<Path> files = Files.list(dir)) {
            sst = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(sst);
        bytes[bytes.length - 10] ^= 0x55;
        Files.write(sst, bytes);
        assertThatThrownBy(() -> LsmEngine.open(options(dir))).isInstanceOf(CorruptionException.class);
        assertThat(Files.exists(sst)).as("nothing is deleted").isTrue();
    }

    @Test
    void missingSstableOrManifestRefusesToStart() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            engine.apply(put("a", "1"));
        }
        Path manifest = FileNames.manifest(dir);
        byte[] saved = Files.readAllBytes(manifest);
        Files.delete(manifest);
        assertThatThrownBy(() -> LsmEngine.open(options(dir)))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("MANIFEST");
        Files.write(manifest, saved);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".sst")).toList()) {
                Files.delete(p);
            }
        }
        assertThatThrownBy(() -> LsmEngine.open(options(dir)))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("missing");
    }

    private static void awaitTablesAtMost(LsmEngine engine, int max) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(engine::compactionIdle);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(engine::tableCount, n -> n <= max);
        assertThat(engine.tableCount()).isLessThanOrEqualTo(max);
    }
}
