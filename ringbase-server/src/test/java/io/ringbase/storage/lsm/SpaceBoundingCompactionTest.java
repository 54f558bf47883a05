package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.compaction.CompactionStrategy;
import io.ringbase.storage.lsm.sstable.SstableReader;
import io.ringbase.testing.MemoryTempDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compaction bounds the space the live tables take: universal compaction under overwrites, and the
 * tombstone trigger for a table full of old tombstones, or of expired TTL values, that no size rule would
 * merge.
 */
@Timeout(120)
class SpaceBoundingCompactionTest {

    @TempDir(factory = MemoryTempDir.class) // many small flushes; no power loss is tested here
    Path tmp;

    /** Versions a minute old and rising, so the tombstone trigger sees them past the purge horizon. */
    private long version = HybridLogicalClock.fromPhysicalMs(TimeSource.SYSTEM.getAsLong() - 60_000);

    private static byte[] key(String prefix, int i) {
        return String.format(Locale.ROOT, "%s%05d", prefix, i).getBytes(StandardCharsets.US_ASCII);
    }

    private static long liveBytes(LsmEngine engine) {
        return engine.liveTables().stream().mapToLong(SstableReader::fileBytes).sum();
    }

    private static long liveTombstones(LsmEngine engine) {
        return engine.liveTables().stream()
                .mapToLong(SstableReader::tombstoneCount)
                .sum();
    }

    private static long liveExpiring(LsmEngine engine) {
        return engine.liveTables().stream()
                .mapToLong(SstableReader::expiringCount)
                .sum();
    }

    private static void awaitCompactionIdle(LsmEngine engine) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(engine::compactionIdle);
    }

    @Test
    void overwritesUnderUniversalStayWithinTheSpaceAmplificationBound() throws Exception {
        LsmOptions options = LsmOptions.defaults(tmp.resolve("d"))
                .withMemtableBytes(64 * 1024)
                .withCompaction(CompactionOptions.defaults().withStrategy(CompactionStrategy.UNIVERSAL));
        int keys = 10_000; // 1.2 MB: a flush of the 64 KiB memtable is some 4 % of it
        SplittableRandom random = new SplittableRandom(1);
        try (LsmEngine engine = LsmEngine.open(options)) {
            long liveData = 0;
            for (int pass = 0; pass <= 10; pass++) {
                for (int i = 0; i < keys; i++) {
                    byte[] value = new byte[100]; // incompressible, as the tables' blocks are compressed
                    random.nextBytes(value);
                    value[0] = (byte) pass;
                    engine.apply(Entry.value(key("k", i), ++version, value));
                }
                engine.flush();
                awaitCompactionIdle(engine);
                if (pass == 0) {
                    engine.compactAll(); // one table holding each key once: the live data
                    liveData = liveBytes(engine);
                    continue;
                }
                // the tables newer than the oldest hold under 25 % of it: about 1.25 times the live data
                assertThat((double) liveBytes(engine))
                        .as(
                                "live table bytes once compaction is idle after overwrite %d (%d tables), live data %d",
                                pass, engine.tableCount(), liveData)
                        .isLessThanOrEqualTo(1.3 * liveData);
            }
            for (int i = 0; i < keys; i += 97) {
                assertThat(engine.get(key("k", i)).value()[0]).isEqualTo((byte) 10);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CompactionStrategy.class)
    void aTableFullOfOldTombstonesIsCompactedAway(CompactionStrategy strategy) throws Exception {
        LsmOptions options = LsmOptions.defaults(tmp.resolve(strategy.flagName()))
                .withCompaction(CompactionOptions.defaults()
                        .withStrategy(strategy)
                        .withTombstoneTrigger(CompactionOptions.DEFAULT_TOMBSTONE_THRESHOLD, 0));
        byte[] value = new byte[1024];
        try (LsmEngine engine = LsmEngine.open(options)) {
            for (int i = 0; i < 1000; i++) {
                engine.apply(Entry.value(key("a", i), ++version, value));
            }
            engine.flush(); // 1 MB of values: the tombstones' table is too small for any size rule to merge
            for (int i = 0; i < 1000; i++) {
                engine.apply(Entry.tombstone(key("b", i), ++version)); // keys in no other source
            }
            engine.flush();
            awaitCompactionIdle(engine);
            // universal merges the table with the older ones and drops every tombstone; size-tiered
            // compacts it alone and keeps the few whose keys the other table's Bloom filter may hold
            assertThat(liveTombstones(engine)).isLessThan(strategy == CompactionStrategy.UNIVERSAL ? 1 : 50);
            assertThat(engine.tableCount()).isLessThanOrEqualTo(2);
            assertThat(engine.get(key("a", 7))).isNotNull();
            // a merge that could not drop them does not loop: compaction is idle and stays so
            engine.flush();
            awaitCompactionIdle(engine);
        }
    }

    @ParameterizedTest
    @EnumSource(CompactionStrategy.class)
    void aTableOfExpiredValuesIsCompactedAway(CompactionStrategy strategy) throws Exception {
        LsmOptions options = LsmOptions.defaults(tmp.resolve(strategy.flagName()))
                .withCompaction(CompactionOptions.defaults()
                        .withStrategy(strategy)
                        .withTombstoneTrigger(CompactionOptions.DEFAULT_TOMBSTONE_THRESHOLD, 0));
        SplittableRandom random = new SplittableRandom(7);
        long expiredAt = TimeSource.SYSTEM.getAsLong() - 30_000; // past the grace, which is 0 on one node
        try (LsmEngine engine = LsmEngine.open(options)) {
            for (int i = 0; i < 1000; i++) {
                byte[] value = new byte[1024]; // incompressible, as the tables' blocks are compressed
                random.nextBytes(value);
                engine.apply(Entry.value(key("a", i), ++version, value));
            }
            engine.flush();
            awaitCompactionIdle(engine);
            long before = liveBytes(engine);
            // 1000 values of 100 random bytes that expired 30 s ago, keys in no other source: some 13 % of
            // the first table's bytes, too small for universal's size amplification rule (25 %), and two
            // tables are too few for a size-tiered tier (4)
            for (int i = 0; i < 1000; i++) {
                byte[] value = new byte[100];
                random.nextBytes(value);
                engine.apply(new Entry(key("c", i), ++version, expiredAt, value));
            }
            engine.flush();
            awaitCompactionIdle(engine);
            // universal merges the table with the older one and drops every expired value; size-tiered
            // compacts it alone and keeps the few whose keys the other table's Bloom filter may hold
            assertThat(liveBytes(engine))
                    .as("live table bytes, %d before the expired values' table", before)
                    .isLessThan(before + 10_000);
            assertThat(liveExpiring(engine)).isLessThan(strategy == CompactionStrategy.UNIVERSAL ? 1 : 50);
            assertThat(engine.get(key("a", 7))).isNotNull();
            // a merge that could not drop them all does not loop: compaction is idle and stays so
            engine.flush();
            awaitCompactionIdle(engine);
        }
    }
}
