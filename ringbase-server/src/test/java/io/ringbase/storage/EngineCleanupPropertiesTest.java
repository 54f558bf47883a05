package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.hash.XxHash64;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link ManagedEngine#cleanup} against a model, on every engine ({@link EngineKind}): random puts (one in
 * four with a TTL, some already expired), deletes (tombstones), stale writes an older version loses, and
 * flushes, so keys have versions spread over several SSTables and the memtable; then a cleanup with a
 * hash-based {@link KeyFilter}. The engine must then hold exactly the model (the newest entry of each key)
 * restricted to the kept keys, entry for entry, by point reads and by scans, and the same after a
 * restart; the count returned is the number of rejected keys the model holds. No older version of a
 * rejected key may surface from an older table. The tombstone grace is 10 days and the clock stands
 * still, so no merge may purge a tombstone or an expired entry and the model needs no purge rule.
 */
class EngineCleanupPropertiesTest {

    private static final long NOW_MS = 1_700_000_000_000L;
    private static final long GRACE_MS = 10L * 24 * 3600 * 1000;
    private static final int KEYS = 60;

    /** One step of the workload. */
    sealed interface Op permits Put, Delete, Flush {}

    /** A value for {@code key}; {@code ttlMs} 0 is none, negative is already expired; {@code stale} writes an older version. */
    record Put(int key, int valueBytes, long ttlMs, boolean stale) implements Op {}

    record Delete(int key, boolean stale) implements Op {}

    record Flush() implements Op {}

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Long> ttl = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0L)),
                Tuple.of(1, Arbitraries.longs().between(-5_000, 5_000)));
        Arbitrary<Op> put = Combinators.combine(
                        key,
                        Arbitraries.integers().between(0, 300),
                        ttl,
                        Arbitraries.of(true, false, false, false, false))
                .as(Put::new);
        Arbitrary<Op> delete = Combinators.combine(key, Arbitraries.of(true, false, false, false, false))
                .as(Delete::new);
        Arbitrary<Op> flush = Arbitraries.just(new Flush());
        return Arbitraries.frequencyOf(Tuple.of(12, put), Tuple.of(5, delete), Tuple.of(1, flush))
                .list()
                .ofMinSize(20)
                .ofMaxSize(600);
    }

    @Property(tries = 40)
    void cleanupLeavesExactlyTheKeptKeysOfTheModel(
            @ForAll EngineKind kind,
            @ForAll("operations") List<Op> ops,
            @ForAll long salt,
            @ForAll @IntRange(min = 2, max = 5) int modulus)
            throws IOException {
        KeyFilter keep = key -> Math.floorMod(XxHash64.hash(key) ^ salt, modulus) != 0;
        Path dir = newTempDir();
        LsmOptions options = LsmOptions.defaults(dir.resolve("d"))
                .withMemtableBytes(64 * 1024)
                .withWallClock(() -> NOW_MS)
                .withTombstoneGraceMs(GRACE_MS);
        try {
            NavigableMap<String, Entry> model = new TreeMap<>();
            try (ManagedEngine engine = StorageEngineContractTest.open(kind, options)) {
                run(engine, ops, model);
                long rejected = model.keySet().stream()
                        .filter(k -> !keep.keep(Keys.utf8(k)))
                        .count();
                assertThat(engine.cleanup(keep)).as("keys removed").isEqualTo(rejected);
                check(engine, model, keep);
            }
            try (ManagedEngine engine = StorageEngineContractTest.open(kind, options)) {
                check(engine, model, keep);
                assertThat(engine.cleanup(keep))
                        .as("a second cleanup finds nothing")
                        .isZero();
            }
        } finally {
            deleteTree(dir);
        }
    }

    private static void run(ManagedEngine engine, List<Op> ops, NavigableMap<String, Entry> model) throws IOException {
        long version = HybridLogicalClock.fromPhysicalMs(NOW_MS);
        for (Op op : ops) {
            switch (op) {
                case Put p -> {
                    long v = p.stale() ? version - 1_000 : ++version;
                    byte[] value = new byte[p.valueBytes()];
                    Arrays.fill(value, (byte) v);
                    long expiry = p.ttlMs() == 0 ? Entry.NO_EXPIRY : NOW_MS + p.ttlMs();
                    apply(engine, model, new Entry(Keys.utf8(name(p.key())), v, expiry, value));
                }
                case Delete d -> {
                    long v = d.stale() ? version - 1_000 : ++version;
                    apply(engine, model, Entry.tombstone(Keys.utf8(name(d.key())), v));
                }
                case Flush _ -> engine.flush();
            }
        }
    }

    private static void apply(ManagedEngine engine, NavigableMap<String, Entry> model, Entry e) throws IOException {
        engine.apply(e);
        model.merge(new String(e.key(), StandardCharsets.UTF_8), e, Entry::newer);
    }

    private static String name(int key) {
        return "k" + String.format("%03d", key);
    }

    /** The engine holds exactly the model's kept keys: point reads of every key, full and live-only scans. */
    private static void check(ManagedEngine engine, NavigableMap<String, Entry> model, KeyFilter keep)
            throws IOException {
        List<Entry> expected = new ArrayList<>();
        List<Entry> expectedLive = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            String key = name(k);
            Entry want = keep.keep(Keys.utf8(key)) ? model.get(key) : null;
            assertThat(engine.get(Keys.utf8(key))).as("get %s", key).isEqualTo(want);
            if (want != null) {
                expected.add(want);
                if (want.isLive(NOW_MS)) {
                    expectedLive.add(want);
                }
            }
        }
        assertThat(scan(engine, false)).isEqualTo(expected);
        assertThat(scan(engine, true)).isEqualTo(expectedLive);
    }

    private static List<Entry> scan(ManagedEngine engine, boolean liveOnly) throws IOException {
        List<Entry> out = new ArrayList<>();
        try (var it = engine.scan(new byte[0], null, liveOnly)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** A directory in {@code /dev/shm} when there is one (fsyncs cost nothing there), else the default. */
    private static Path newTempDir() throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "cleanup-")
                : Files.createTempDirectory("cleanup-");
    }

    private static void deleteTree(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
