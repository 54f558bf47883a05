package io.ringbase.storage.lsm;

import static io.ringbase.storage.lsm.LsmEngineTest.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WriteBatch;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link LsmEngine#tryApplyAll}: a batch of writes with one WAL write per memtable it lands in. */
@Timeout(120)
class LsmEngineWriteBatchTest {

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    @Test
    void aBatchIsWrittenWithOneWalWriteAndSurvivesACrash() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            WriteBatch batch = new WriteBatch(64);
            for (int i = 0; i < 50; i++) {
                batch.add(Keys.utf8("k" + i), ++version, Entry.NO_EXPIRY, MemorySegment.ofArray(Keys.utf8("v" + i)));
            }
            batch.add(Keys.utf8("k7"), ++version, Entry.NO_EXPIRY, null); // a later tombstone of a key in it
            long writes = engine.stats().walWrites();
            assertThat(engine.tryApplyAll(batch)).isTrue();
            assertThat(batch.applied()).isEqualTo(51);
            assertThat(engine.stats().walWrites()).isEqualTo(writes + 1);
            assertThat(value(engine, "k0")).isEqualTo("v0");
            assertThat(value(engine, "k7")).isNull();
            assertThat(engine.tryApplyAll(batch)).isTrue(); // nothing left: nothing written again
            assertThat(engine.stats().walWrites()).isEqualTo(writes + 1);
            CrashImage.copy(engine, dir, tmp.resolve("crash"));
        }
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("crash")))) {
            assertThat(value(engine, "k0")).isEqualTo("v0");
            assertThat(value(engine, "k49")).isEqualTo("v49");
            assertThat(engine.get(Keys.utf8("k7")).isTombstone()).isTrue();
        }
    }

    /** Small memtables: batches keep filling one mid-way; every write lands, as a model says, across restarts. */
    @Test
    void batchesThatFillMemtablesMatchAModelAcrossACrash() throws Exception {
        Path dir = tmp.resolve("d");
        LsmOptions options = LsmOptions.defaults(dir).withMemtableBytes(64 * 1024);
        Map<String, String> model = new TreeMap<>();
        Random random = new Random(42);
        WriteBatch batch = new WriteBatch(200);
        int declined = 0;
        try (LsmEngine engine = LsmEngine.open(options)) {
            for (int round = 0; round < 200; round++) {
                batch.clear();
                int n = 1 + random.nextInt(200);
                for (int i = 0; i < n; i++) {
                    String key = "key-" + random.nextInt(3000);
                    if (random.nextInt(10) == 0) {
                        batch.add(Keys.utf8(key), ++version, Entry.NO_EXPIRY, null);
                    } else {
                        byte[] v = new byte[1 + random.nextInt(300)];
                        random.nextBytes(v);
                        batch.add(Keys.utf8(key), ++version, Entry.NO_EXPIRY, MemorySegment.ofArray(v));
                    }
                }
                if (!engine.tryApplyAll(batch)) {
                    declined++;
                    for (int i = batch.applied(); i < batch.size(); i++) { // as a worker would
                        engine.apply(batch.key(i), batch.version(i), batch.expiresAtMs(i), batch.value(i));
                    }
                }
                for (int i = 0; i < batch.size(); i++) {
                    MemorySegment v = batch.value(i);
                    String key = new String(batch.key(i), StandardCharsets.UTF_8);
                    if (v == null) {
                        model.remove(key);
                    } else {
                        model.put(
                                key,
                                java.util.HexFormat.of().formatHex(v.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
                    }
                }
            }
            assertThat(engine.stats().flushes()).isGreaterThan(5); // the batches did fill memtables
            CrashImage.copy(engine, dir, tmp.resolve("crash"));
        }
        try (LsmEngine engine = LsmEngine.open(options.withDataDir(tmp.resolve("crash")))) {
            for (int k = 0; k < 3000; k++) {
                String key = "key-" + k;
                Entry e = engine.get(Keys.utf8(key));
                String got = e == null || e.isTombstone()
                        ? null
                        : java.util.HexFormat.of().formatHex(e.value());
                assertThat(got).as(key).isEqualTo(model.get(key));
            }
        }
        assertThat(declined).isLessThan(200); // most batches went through without waiting
    }

    @Test
    void withCompactionBehindNothingIsWrittenAndTheCallerIsTold() throws IOException {
        Path dir = tmp.resolve("d");
        LsmOptions options = LsmOptions.defaults(dir)
                .withCompaction(CompactionOptions.defaults().withWriteTriggers(1, 1_000));
        try (LsmEngine engine = LsmEngine.open(options)) {
            engine.apply(Keys.utf8("a"), ++version, Entry.NO_EXPIRY, MemorySegment.ofArray(Keys.utf8("1")));
            engine.flush(); // one table: the slowdown trigger (1) is reached
            WriteBatch batch = new WriteBatch(4);
            batch.add(Keys.utf8("b"), ++version, Entry.NO_EXPIRY, MemorySegment.ofArray(Keys.utf8("2")));
            assertThat(engine.tryApplyAll(batch)).isFalse();
            assertThat(batch.applied()).isZero();
            assertThat(value(engine, "b")).isNull();
        }
    }
}
