package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes slow down, then stop, at configurable counts of SSTables waiting for compaction while it is
 * behind (RocksDB's level0_slowdown_writes_trigger and level0_stop_writes_trigger), and settled size
 * tiers, which no merge reduces, do not count.
 */
class CompactionBackpressureTest {

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    private LsmOptions options(Path dir, long stallMs) {
        // no automatic compaction below 32 tables: the test decides when compaction catches up
        CompactionOptions never = new CompactionOptions(32, 32, 32L << 20, 0.5, 1.5).withWriteTriggers(3, 5);
        return new LsmOptions(
                dir, WalSyncPolicy.PERIODIC, 1000, 4096, 16384, stallMs, never, 0, System::currentTimeMillis);
    }

    private void putAndFlush(LsmEngine engine, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            engine.apply(Entry.value(Keys.utf8("k" + i), ++version, Keys.utf8("v")));
            engine.flush();
        }
    }

    @Test
    void writesSlowDownAtTheSlowdownTriggerAndStopAtTheStopTrigger() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options(tmp.resolve("d"), 3_000))) {
            putAndFlush(engine, 2);
            assertThat(engine.tableCount()).isEqualTo(2);
            assertThat(engine.writeMayBlock()).isFalse();
            putAndFlush(engine, 1);
            // slowdown: event loops hand writes to workers, which are delayed but succeed
            assertThat(engine.writeMayBlock()).isTrue();
            assertThat(engine.tryApply(Keys.utf8("x"), ++version, Entry.NO_EXPIRY, MemorySegment.ofArray(new byte[1])))
                    .isFalse();
            long stallsBefore = engine.stats().writeStalls();
            engine.apply(Entry.value(Keys.utf8("slowed"), ++version, Keys.utf8("v")));
            assertThat(engine.stats().writeStalls()).isGreaterThan(stallsBefore);
            putAndFlush(engine, 2);
            assertThat(engine.tableCount()).isEqualTo(5);
            // stop: a write waits for compaction, then fails as busy (503)
            assertThatThrownBy(() -> engine.apply(Entry.value(Keys.utf8("stopped"), ++version, Keys.utf8("v"))))
                    .isInstanceOf(StoreBusyException.class)
                    .hasMessageContaining("compaction has fallen behind")
                    .hasMessageContaining("stop at 5");
            assertThat(engine.get(Keys.utf8("stopped"))).isNull();
            engine.compactAll();
            engine.apply(Entry.value(Keys.utf8("resumed"), ++version, Keys.utf8("v")));
            assertThat(engine.writeMayBlock()).isFalse();
        }
    }

    /**
     * A large store in size-tiered steady state, 7 tiers of 3 tables with nothing to merge, holds 21 live
     * tables, past both triggers: writes must go on at full speed, since no compaction can bring that count
     * down. Tables here are made by flushing random (incompressible) values, twice as large per tier.
     */
    @Test
    void settledTiersDoNotSlowWrites() throws Exception {
        CompactionOptions tiers = new CompactionOptions(4, 32, 0, 0.5, 1.5).withWriteTriggers(5, 10);
        LsmOptions opts = new LsmOptions(
                tmp.resolve("d"),
                WalSyncPolicy.PERIODIC,
                1000,
                1 << 20,
                4 << 20,
                3_000,
                tiers,
                0,
                System::currentTimeMillis);
        java.util.Random random = new java.util.Random(36);
        try (LsmEngine engine = LsmEngine.open(opts)) {
            for (int tier = 0; tier < 7; tier++) {
                for (int table = 0; table < 3; table++) {
                    for (int i = 0; i < 8; i++) {
                        byte[] value = new byte[256 << tier];
                        random.nextBytes(value);
                        engine.apply(Entry.value(Keys.utf8("t" + tier + "-" + table + "-" + i), ++version, value));
                    }
                    engine.flush();
                }
            }
            assertThat(engine.tableCount())
                    .as("nothing was eligible for a merge")
                    .isEqualTo(21);
            assertThat(engine.stats().tiers()).hasSize(7);
            assertThat(engine.writeMayBlock()).isFalse();
            long stallsBefore = engine.stats().writeStalls();
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.value(Keys.utf8("after" + i), ++version, Keys.utf8("v")));
            }
            assertThat(engine.stats().writeStalls()).as("no write was slowed").isEqualTo(stallsBefore);
            assertThat(engine.tryApply(Keys.utf8("x"), ++version, Entry.NO_EXPIRY, MemorySegment.ofArray(new byte[1])))
                    .isTrue();
        }
    }

    @Test
    void aStoppedWriteGoesThroughOnceCompactionCatchesUp() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options(tmp.resolve("d"), 20_000))) {
            putAndFlush(engine, 5);
            long stallsBefore = engine.stats().writeStalls();
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
                try {
                    engine.apply(Entry.value(Keys.utf8("waiting"), ++version, Keys.utf8("v")));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            // the writer has reached the stop trigger (a stall is counted as it begins to wait), and it stays
            // there: not done for 200 ms, well within the 20 s it may wait for compaction
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(1))
                    .alias("the write reached the stop trigger")
                    .until(() -> engine.stats().writeStalls(), n -> n > stallsBefore);
            await().during(Duration.ofMillis(200))
                    .atMost(Duration.ofSeconds(5))
                    .alias("the stopped write waits")
                    .until(() -> !stopped.isDone());
            assertThat(stopped).isNotDone();
            assertThat(engine.get(Keys.utf8("waiting")))
                    .as("the stopped write is not applied yet")
                    .isNull();
            engine.compactAll();
            stopped.get(10, TimeUnit.SECONDS);
            assertThat(engine.get(Keys.utf8("waiting"))).isNotNull();
        }
    }
}
