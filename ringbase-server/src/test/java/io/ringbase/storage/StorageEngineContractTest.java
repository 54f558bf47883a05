package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.rocksdb.RocksDbEngine;
import io.ringbase.storage.rocksdb.RocksDbOptions;
import io.ringbase.testing.MemoryTempDir;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link StorageEngine} contract, run on every engine ({@link EngineKind}): versions decide, tombstones
 * and TTL, lazy scans, durability across restarts, tombstone grace, a directory used by one engine at a
 * time. What only our engine has (its WAL's torn tail, its SSTable checksums, crash images taken
 * between its own I/O steps, size-tiered compaction in the background) stays in
 * {@code io.ringbase.storage.lsm.LsmEngineTest}.
 */
public class StorageEngineContractTest {

    private static final long DAY_MS = 24L * 3600 * 1000;

    @TempDir(factory = MemoryTempDir.class) // fsyncs by the thousand; no power loss is tested here
    Path tmp;

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private long version = 1L << 40;

    private LsmOptions options(Path dir) {
        return LsmOptions.defaults(dir).withWallClock(clock::get);
    }

    /** Opens {@code kind} with {@code options}; RocksDB takes the settings both engines share. */
    static ManagedEngine open(EngineKind kind, LsmOptions options) throws IOException {
        return switch (kind) {
            case LSM -> LsmEngine.open(options);
            case ROCKSDB -> RocksDbEngine.open(RocksDbOptions.from(options));
        };
    }

    private Entry put(String k, String v) {
        return Entry.value(Keys.utf8(k), ++version, Keys.utf8(v));
    }

    private static String value(StorageEngine engine, String key) throws IOException {
        Entry e = engine.get(Keys.utf8(key));
        return e == null || e.isTombstone() ? null : new String(e.value(), StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void putGetDeleteAndOverwrite(EngineKind kind) throws IOException {
        try (ManagedEngine engine = open(kind, options(tmp.resolve("d")))) {
            engine.apply(put("a", "1"));
            engine.apply(put("b", "2"));
            engine.apply(put("a", "3"));
            engine.apply(Entry.tombstone(Keys.utf8("b"), ++version));
            assertThat(value(engine, "a")).isEqualTo("3");
            assertThat(engine.get(Keys.utf8("b")).isTombstone()).isTrue();
            assertThat(engine.get(Keys.utf8("c"))).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void anOlderVersionChangesNothingAndTiesBreakAsCompareNewnessSays(EngineKind kind) throws IOException {
        try (ManagedEngine engine = open(kind, options(tmp.resolve("d")))) {
            engine.apply(Entry.value(Keys.utf8("k"), 100, Keys.utf8("new")));
            engine.apply(Entry.value(Keys.utf8("k"), 99, Keys.utf8("old")));
            engine.apply(Entry.tombstone(Keys.utf8("k"), 98));
            assertThat(value(engine, "k")).isEqualTo("new");
            // equal versions: a tombstone wins over a value; between values, the greater bytes
            engine.apply(Entry.value(Keys.utf8("t"), 7, Keys.utf8("b")));
            engine.apply(Entry.value(Keys.utf8("t"), 7, Keys.utf8("a")));
            assertThat(value(engine, "t")).isEqualTo("b");
            engine.apply(Entry.tombstone(Keys.utf8("t"), 7));
            engine.apply(Entry.value(Keys.utf8("t"), 7, Keys.utf8("c")));
            assertThat(engine.get(Keys.utf8("t")).isTombstone()).isTrue();
            engine.flush();
            engine.apply(Entry.value(Keys.utf8("k"), 50, Keys.utf8("stale after flush")));
            assertThat(value(engine, "k")).isEqualTo("new");
            assertThat(engine.get(Keys.utf8("k")).version()).isEqualTo(100);
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void applyBySegmentStoresTheSameAsApplyByEntry(EngineKind kind) throws IOException {
        try (ManagedEngine engine = open(kind, options(tmp.resolve("d")))) {
            engine.apply(Keys.utf8("seg"), ++version, clock.get() + 5000, MemorySegment.ofArray(Keys.utf8("bytes")));
            engine.apply(Keys.utf8("gone"), ++version, Entry.NO_EXPIRY, null);
            Entry e = engine.get(Keys.utf8("seg"));
            assertThat(e).isEqualTo(new Entry(Keys.utf8("seg"), version - 1, clock.get() + 5000, Keys.utf8("bytes")));
            assertThat(engine.get(Keys.utf8("gone")).isTombstone()).isTrue();
            try (ReadCursor cursor = new ReadCursor()) {
                assertThat(engine.read(Keys.utf8("seg"), cursor)).isTrue();
                assertThat(cursor.toEntry()).isEqualTo(e);
                assertThat(cursor.isLive(clock.get())).isTrue();
                assertThat(cursor.isLive(clock.get() + 5000)).isFalse();
                assertThat(engine.read(Keys.utf8("absent"), cursor)).isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void expiredEntriesAreFoundButNotLiveAndScansSkipThem(EngineKind kind) throws IOException {
        try (ManagedEngine engine = open(kind, options(tmp.resolve("d")))) {
            engine.apply(new Entry(Keys.utf8("a"), ++version, clock.get() + 100, Keys.utf8("short")));
            engine.apply(put("b", "long"));
            engine.apply(Entry.tombstone(Keys.utf8("c"), ++version));
            clock.addAndGet(100);
            Entry a = engine.get(Keys.utf8("a"));
            assertThat(a).isNotNull();
            assertThat(a.isLive(clock.get())).isFalse();
            List<String> live = new ArrayList<>();
            try (var it = engine.scan(new byte[0], null, true)) {
                it.forEachRemaining(e -> live.add(new String(e.key(), StandardCharsets.UTF_8)));
            }
            assertThat(live).containsExactly("b");
            List<String> all = new ArrayList<>();
            try (var it = engine.scan(new byte[0], null, false)) {
                it.forEachRemaining(e -> all.add(new String(e.key(), StandardCharsets.UTF_8)));
            }
            assertThat(all).containsExactly("a", "b", "c");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void dataSurvivesCleanRestart(EngineKind kind) throws IOException {
        Path dir = tmp.resolve("d");
        try (ManagedEngine engine = open(kind, options(dir))) {
            for (int i = 0; i < 1000; i++) {
                engine.apply(put("k" + i, "v" + i));
            }
            engine.apply(Entry.value(Keys.utf8("k0"), 5, Keys.utf8("older: changes nothing")));
        }
        try (ManagedEngine engine = open(kind, options(dir))) {
            for (int i = 0; i < 1000; i++) {
                assertThat(value(engine, "k" + i)).isEqualTo("v" + i);
            }
            assertThat(engine.maxVersion()).isEqualTo(version);
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void typedEntriesKeepTheirBitThroughTheWalTheTablesAndCompaction(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        List<Entry> entries = TypedEntries.random(29, 400);
        try (ManagedEngine engine = open(kind, options(dir))) {
            for (Entry e : entries) {
                engine.apply(e);
            }
            checkTyped(engine, entries, false);
        }
        try (ManagedEngine engine = open(kind, options(dir))) { // the WAL replayed (LSM)
            checkTyped(engine, entries, false);
            engine.flush();
            checkTyped(engine, entries, false);
            engine.compactAll();
            checkTyped(engine, entries, true);
        }
        try (ManagedEngine engine = open(kind, options(dir))) { // from the tables alone
            checkTyped(engine, entries, true);
        }
    }

    /** Each entry reads back whole, typed bit included, by get and by the cursor; {@code liveOnly}: after a purge. */
    private static void checkTyped(StorageEngine engine, List<Entry> entries, boolean liveOnly) throws IOException {
        ReadCursor cursor = new ReadCursor();
        for (Entry e : entries) {
            if (liveOnly && (e.isTombstone() || e.hasExpiry())) {
                continue;
            }
            Entry back = engine.get(e.key());
            assertThat(back).as("%s", e).isEqualTo(e);
            assertThat(back.typed()).as("%s", e).isEqualTo(e.typed());
            try {
                assertThat(engine.read(e.key(), cursor)).isTrue();
                assertThat(cursor.typed()).as("%s", e).isEqualTo(e.typed());
                assertThat(cursor.contentType()).as("%s", e).isEqualTo(e.contentType());
            } finally {
                cursor.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void anEmptyEngineHasNoMaxVersion(EngineKind kind) throws IOException {
        try (ManagedEngine engine = open(kind, options(tmp.resolve("d")))) {
            assertThat(engine.maxVersion()).isEqualTo(Long.MIN_VALUE);
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void flushesKeepEveryKeyAndScansSeeThem(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        try (ManagedEngine engine = open(kind, options(dir).withMemtableBytes(64 * 1024))) {
            for (int i = 0; i < 20_000; i++) {
                engine.apply(put(String.format("k%06d", i), "value-" + i));
            }
            engine.flush();
            assertThat(engine.tableCount()).isPositive();
            assertThat(engine.stats().flushes()).isPositive();
            assertThat(engine.stats().sstableBytes()).isPositive();
            awaitCompacted(engine, kind);
            for (int i = 0; i < 20_000; i += 97) {
                assertThat(value(engine, String.format("k%06d", i))).isEqualTo("value-" + i);
            }
            List<String> keys = new ArrayList<>();
            try (var it = engine.scan(Keys.utf8("k000100"), Keys.utf8("k000200"), true)) {
                it.forEachRemaining(e -> keys.add(new String(e.key(), StandardCharsets.UTF_8)));
            }
            assertThat(keys).hasSize(100).first().isEqualTo("k000100");
            assertThat(keys).last().isEqualTo("k000199");
        }
        try (ManagedEngine engine = open(kind, options(dir))) {
            assertThat(value(engine, "k019999")).isEqualTo("value-19999");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void overwritingTheSameKeysDoesNotGrowTheDirectory(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        byte[] payload = new byte[100];
        try (ManagedEngine engine = open(kind, options(dir).withMemtableBytes(512 * 1024))) {
            for (int round = 0; round < 100; round++) {
                for (int k = 0; k < 10_000; k++) {
                    engine.apply(Entry.value(Keys.utf8("key" + k), ++version, payload));
                }
            }
            engine.flush();
            awaitCompacted(engine, kind);
            // One copy of the live data is ~10,000 * (100 + 30) bytes = 1.3 MB; 100 rounds wrote 130 MB.
            assertThat(directoryBytes(dir)).isLessThan(20L << 20);
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void compactAllDropsTombstonesAndExpiredEntries(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        try (ManagedEngine engine = open(kind, options(dir))) {
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
            engine.compactAll();
            assertThat(engine.tableCount()).isZero();
            assertThat(engine.get(Keys.utf8("k0"))).isNull();
            assertThat(engine.get(Keys.utf8("k1"))).isNull();
            try (var it = engine.scan(new byte[0], null, false)) {
                assertThat(it.hasNext()).isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void aTombstoneYoungerThanTheGraceSurvivesCompactionAndAnOlderOneIsDropped(EngineKind kind) throws Exception {
        long grace = 10 * DAY_MS;
        try (ManagedEngine engine = open(kind, options(tmp.resolve("d")).withTombstoneGraceMs(grace))) {
            long written = HybridLogicalClock.fromPhysicalMs(clock.get() - 20 * DAY_MS);
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.value(Keys.utf8("old-" + i), written + i, Keys.utf8("v")));
                engine.apply(Entry.value(Keys.utf8("young-" + i), written + i, Keys.utf8("v")));
                engine.apply(new Entry(
                        Keys.utf8("ttl-old-" + i), written + i, clock.get() - grace - DAY_MS, Keys.utf8("v")));
                engine.apply(new Entry(Keys.utf8("ttl-young-" + i), written + i, clock.get() - DAY_MS, Keys.utf8("v")));
            }
            engine.flush();
            long oldDelete = HybridLogicalClock.fromPhysicalMs(clock.get() - grace - DAY_MS);
            long youngDelete = HybridLogicalClock.fromPhysicalMs(clock.get() - grace + DAY_MS);
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.tombstone(Keys.utf8("old-" + i), oldDelete + i));
                engine.apply(Entry.tombstone(Keys.utf8("young-" + i), youngDelete + i));
            }
            engine.flush();
            engine.compactAll();
            for (int i = 0; i < 100; i++) {
                assertThat(engine.get(Keys.utf8("old-" + i))).as("old-%d", i).isNull();
                assertThat(engine.get(Keys.utf8("ttl-old-" + i)))
                        .as("ttl-old-%d", i)
                        .isNull();
                Entry young = engine.get(Keys.utf8("young-" + i));
                assertThat(young).as("young-%d", i).isNotNull();
                assertThat(young.isTombstone()).isTrue();
                assertThat(young.version()).isEqualTo(youngDelete + i);
                Entry ttlYoung = engine.get(Keys.utf8("ttl-young-" + i));
                assertThat(ttlYoung).as("ttl-young-%d", i).isNotNull();
                assertThat(ttlYoung.isLive(clock.get())).isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void randomizedOperationsMatchAModelAcrossRestarts(EngineKind kind) throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            runModel(kind, seed);
        }
    }

    private void runModel(EngineKind kind, long seed) throws Exception {
        Random rnd = new Random(seed);
        Path dir = tmp.resolve("model-" + seed);
        TreeMap<String, Entry> model = new TreeMap<>();
        LsmOptions opts = options(dir)
                .withMemtableBytes(64 * 1024)
                .withWalSync(rnd.nextBoolean() ? WalSyncPolicy.ALWAYS : WalSyncPolicy.PERIODIC);
        ManagedEngine engine = open(kind, opts);
        try {
            for (int op = 0; op < 6000; op++) {
                int k = modelStep(engine, model, rnd, clock, () -> ++version, "seed " + seed + " op " + op);
                if (k < MODEL_STEP_KINDS) {
                    continue; // done by modelStep
                }
                if (k < 98) {
                    engine.flush();
                } else {
                    engine.close();
                    engine = open(kind, opts);
                }
            }
            checkScan(engine, model, rnd, clock.get());
        } finally {
            engine.close();
        }
    }

    /** {@link #modelStep} handles the step kinds below this one (of 0..99); the callers add their own above. */
    public static final int MODEL_STEP_KINDS = 95;

    /**
     * One step of a randomized run against {@code model}, shared with {@code io.ringbase.storage.lsm.LsmEngineTest}'s crash model:
     * draws a key of 300 and a kind of 100, and for a kind below {@link #MODEL_STEP_KINDS} does it: a put
     * (one in five with a TTL of up to 2 s), a delete, a read checked against the model at {@code clock}, a
     * range scan checked by {@link #checkScan}, or moving {@code clock} on by up to 0.5 s.
     *
     * @param nextVersion gives each write its version
     * @param context     names the step in assertion messages
     * @return the kind drawn (0..99); the caller does those at or above {@link #MODEL_STEP_KINDS}
     */
    public static int modelStep(
            StorageEngine engine,
            NavigableMap<String, Entry> model,
            Random rnd,
            AtomicLong clock,
            LongSupplier nextVersion,
            String context)
            throws IOException {
        String key = "key" + rnd.nextInt(300);
        int kind = rnd.nextInt(100);
        if (kind < 45) {
            Entry e = rnd.nextInt(5) == 0
                    ? new Entry(
                            Keys.utf8(key),
                            nextVersion.getAsLong(),
                            clock.get() + 1 + rnd.nextInt(2000),
                            randomValue(rnd))
                    : Entry.value(Keys.utf8(key), nextVersion.getAsLong(), randomValue(rnd));
            engine.apply(e);
            model.put(key, e);
        } else if (kind < 60) {
            Entry e = Entry.tombstone(Keys.utf8(key), nextVersion.getAsLong());
            engine.apply(e);
            model.put(key, e);
        } else if (kind < 85) {
            Entry expected = model.get(key);
            Entry actual = engine.get(Keys.utf8(key));
            boolean live = expected != null && expected.isLive(clock.get());
            assertThat(actual != null && actual.isLive(clock.get()))
                    .as("%s key %s", context, key)
                    .isEqualTo(live);
            if (live) {
                assertThat(actual.value()).isEqualTo(expected.value());
            }
        } else if (kind < 90) {
            checkScan(engine, model, rnd, clock.get());
        } else if (kind < MODEL_STEP_KINDS) {
            clock.addAndGet(rnd.nextInt(500));
        }
        return kind;
    }

    /**
     * Checks a random range scan of live entries against {@code model} at {@code nowMs} (Unix ms); shared
     * with {@code io.ringbase.storage.lsm.LsmEngineTest}'s crash model.
     */
    public static void checkScan(StorageEngine engine, NavigableMap<String, Entry> model, Random rnd, long nowMs)
            throws IOException {
        String start = "key" + rnd.nextInt(300);
        String end = rnd.nextBoolean() ? null : "key" + rnd.nextInt(300);
        List<String> expected = new ArrayList<>();
        Map<String, Entry> range = end == null
                ? model.tailMap(start, true)
                : (start.compareTo(end) < 0 ? model.subMap(start, true, end, false) : Map.of());
        range.forEach((key, e) -> {
            if (e.isLive(nowMs)) {
                expected.add(key + "=" + new String(e.value(), StandardCharsets.ISO_8859_1));
            }
        });
        List<String> actual = new ArrayList<>();
        try (var it = engine.scan(Keys.utf8(start), end == null ? null : Keys.utf8(end), true)) {
            it.forEachRemaining(e -> actual.add(new String(e.key(), StandardCharsets.UTF_8) + "="
                    + new String(e.value(), StandardCharsets.ISO_8859_1)));
        }
        assertThat(actual).isEqualTo(expected);
    }

    /** A random value of 0-199 bytes; shared with {@code io.ringbase.storage.lsm.LsmEngineTest}. */
    static byte[] randomValue(Random rnd) {
        byte[] v = new byte[rnd.nextInt(200)];
        rnd.nextBytes(v);
        return v;
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void secondEngineOnTheSameDirectoryIsRefused(EngineKind kind) throws IOException {
        Path dir = tmp.resolve("d");
        try (ManagedEngine _ = open(kind, options(dir))) {
            assertThatThrownBy(() -> open(kind, options(dir))).hasMessageContaining("in use");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void scanIsLazyAndSeesASnapshotOfTables(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        try (ManagedEngine engine = open(kind, options(dir).withMemtableBytes(64 * 1024))) {
            for (int i = 0; i < 5000; i++) {
                engine.apply(put(String.format("k%05d", i), "v" + i));
            }
            engine.flush();
            int n = 0;
            try (var it = engine.scan(Keys.utf8("k"), null, true)) {
                while (it.hasNext()) {
                    it.next();
                    if (n++ == 10) {
                        // writes and flushes racing with the scan do not break it
                        for (int i = 0; i < 3000; i++) {
                            engine.apply(put(String.format("z%05d", i), "x"));
                        }
                        engine.flush();
                    }
                }
            }
            assertThat(n).isGreaterThanOrEqualTo(5000);
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void aScanLeftOpenAtCloseEndsCleanly(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        ManagedEngine engine = open(kind, options(dir));
        for (int i = 0; i < 100; i++) {
            engine.apply(put(String.format("k%05d", i), "v" + i));
        }
        var it = engine.scan(new byte[0], null, true);
        assertThat(it.next().key()).isEqualTo(Keys.utf8("k00000"));
        engine.close();
        it.close();
        try (ManagedEngine again = open(kind, options(dir))) {
            assertThat(value(again, "k00099")).isEqualTo("v99");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void aSnapshotIsADataDirectoryOfTheSameEngine(EngineKind kind) throws Exception {
        Path dir = tmp.resolve("d");
        Path snap;
        try (ManagedEngine engine = open(kind, options(dir))) {
            for (int i = 0; i < 100; i++) {
                engine.apply(put("k" + i, "v" + i));
            }
            snap = engine.snapshot("s1").dir();
            engine.apply(put("k0", "after"));
            assertThatThrownBy(() -> engine.snapshot("s1"))
                    .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
        }
        try (ManagedEngine restored = open(kind, options(snap))) {
            assertThat(value(restored, "k0")).isEqualTo("v0");
            assertThat(value(restored, "k99")).isEqualTo("v99");
        }
    }

    /**
     * Waits until background compaction has bounded the tables: our engine, once compaction is idle,
     * holds a few tables: under size-tiered, fewer than {@link CompactionOptions#minThreshold()} per tier
     * (one tier here); under universal (the default), the oldest table and fewer than
     * {@code minThreshold} per size step of the newer ones, which hold under a quarter of it (two steps
     * at this test's sizes); RocksDB's levelled compaction keeps
     * level 0 (tier 0 of its stats) under its trigger of {@value #ROCKSDB_L0_TRIGGER} files, and moves
     * non-overlapping files down whole, so its other levels are bounded by bytes, not by a count.
     */
    private static void awaitCompacted(ManagedEngine engine, EngineKind kind) {
        if (engine instanceof LsmEngine lsm) {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(lsm::compactionIdle);
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> boundedCount(engine, kind), n -> n <= bound(kind));
        assertThat(boundedCount(engine, kind)).isLessThanOrEqualTo(bound(kind));
    }

    private static final int ROCKSDB_L0_TRIGGER = 4;

    private static int bound(EngineKind kind) {
        return kind == EngineKind.LSM ? 2 * CompactionOptions.defaults().minThreshold() : ROCKSDB_L0_TRIGGER;
    }

    private static int boundedCount(ManagedEngine engine, EngineKind kind) {
        if (kind == EngineKind.LSM) {
            return engine.tableCount();
        }
        return engine.stats().tiers().stream()
                .filter(t -> t.tier() == 0)
                .mapToInt(EngineStats.Tier::tables)
                .sum();
    }

    /**
     * Bytes of every file under {@code dir}, subdirectories included. A file deleted while the walk runs
     * (by a finishing flush or compaction) counts 0, whether it goes between the directory listing and
     * the walk's own look at it or before its size is read: {@code Files.walk} threw on the first.
     */
    static long directoryBytes(Path dir) throws IOException {
        long[] bytes = {0};
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    bytes[0] += attrs.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // deleted meanwhile
                }
                throw e;
            }
        });
        return bytes[0];
    }
}
