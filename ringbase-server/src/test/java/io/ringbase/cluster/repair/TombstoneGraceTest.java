package io.ringbase.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage-side guarantee repair relies on: compaction keeps a tombstone until its version's physical
 * time is older than {@link LsmOptions#tombstoneGraceMs()}, so a repair within that period still carries
 * the delete to a replica that missed it.
 */
class TombstoneGraceTest {

    private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);
    private static final long GRACE_MS = 10 * DAY_MS;

    @TempDir
    Path tmp;

    @Test
    void aTombstoneYoungerThanTheGraceSurvivesCompactionAndAnOlderOneIsDropped() throws Exception {
        AtomicLong now = new AtomicLong(1_700_000_000_000L);
        LsmOptions options = LsmOptions.defaults(tmp.resolve("d"))
                .withWallClock(now::get)
                .withTombstoneGraceMs(GRACE_MS)
                .withCompaction(new CompactionOptions(2, 32, 32L << 20, 0.5, 1.5)); // any 2 tables compact
        try (LsmEngine engine = LsmEngine.open(options)) {
            long written = HybridLogicalClock.fromPhysicalMs(now.get() - 20 * DAY_MS);
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.value(Keys.utf8("old-" + i), written + i, Keys.utf8("v")));
                engine.apply(Entry.value(Keys.utf8("young-" + i), written + i, Keys.utf8("v")));
            }
            engine.flush();
            long oldDelete = HybridLogicalClock.fromPhysicalMs(now.get() - GRACE_MS - DAY_MS);
            long youngDelete = HybridLogicalClock.fromPhysicalMs(now.get() - GRACE_MS + DAY_MS);
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.tombstone(Keys.utf8("old-" + i), oldDelete + i));
                engine.apply(Entry.tombstone(Keys.utf8("young-" + i), youngDelete + i));
            }
            engine.flush(); // the second table: compaction merges both into one

            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(10))
                    .until(engine::tableCount, n -> n <= 1);
            assertThat(engine.tableCount()).isEqualTo(1);
            for (int i = 0; i < 100; i++) {
                assertThat(engine.get(Keys.utf8("old-" + i))).as("old-%d", i).isNull();
                Entry young = engine.get(Keys.utf8("young-" + i));
                assertThat(young).as("young-%d", i).isNotNull();
                assertThat(young.isTombstone()).isTrue();
                assertThat(young.version()).isEqualTo(youngDelete + i);
            }
        }
    }
}
