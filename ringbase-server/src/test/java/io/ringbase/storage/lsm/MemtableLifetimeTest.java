package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native memory of the engine's memtables: freed after their flush, never while a reader pins it,
 * and bounded by two memtables whatever the write load.
 */
class MemtableLifetimeTest {

    static final long MEMTABLE = 64 * 1024;

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    private LsmOptions options() {
        return LsmOptions.defaults(tmp.resolve("d")).withMemtableBytes(MEMTABLE);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[200];
        for (int j = 0; j < v.length; j++) {
            v[j] = (byte) (i * 7 + j);
        }
        return v;
    }

    @Test
    void afterAHundredFlushesTheNativeBytesInUseAreBackToTheBaseline() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options())) {
            long baseline = engine.memtableNativeBytes();
            for (int cycle = 0; cycle < 100; cycle++) {
                for (int i = 0; i < 50; i++) {
                    engine.apply(Entry.value(Keys.utf8("c" + cycle + "-" + i), ++version, value(i)));
                }
                engine.flush();
                assertThat(engine.memtableBytes())
                        .as("at most two memtables' slabs, cycle %d", cycle)
                        .isLessThanOrEqualTo(2 * MEMTABLE);
            }
            // only the active memtable (fresh after the last flush) is left: its first slab
            assertThat(engine.memtableNativeBytes()).isEqualTo(baseline);
            assertThat(engine.get(Keys.utf8("c42-7")).value()).isEqualTo(value(7));
        }
    }

    @Test
    void aWriteLoadNeverHoldsMoreThanTwoMemtables() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options())) {
            long peak = 0;
            for (int i = 0; i < 20_000; i++) {
                engine.apply(Entry.value(Keys.utf8("k" + i), ++version, value(i)));
                peak = Math.max(peak, engine.memtableBytes());
            }
            assertThat(peak).isLessThanOrEqualTo(2 * MEMTABLE);
        }
    }

    @Test
    void aScanOpenAcrossFlushesStillReadsTheRightBytes() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options())) {
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.value(Keys.utf8(String.format("s%03d", i)), ++version, value(i)));
            }
            long pinned = engine.memtableNativeBytes();
            List<Entry> seen = new ArrayList<>();
            try (CloseableIterator<Entry> scan = engine.scan(Keys.utf8("s"), null, true)) {
                seen.add(scan.next()); // the merge has read ahead into the memtable
                for (int cycle = 0; cycle < 20; cycle++) { // flush it away, and overwrite memory churn
                    for (int i = 0; i < 100; i++) {
                        engine.apply(Entry.value(Keys.utf8("t" + cycle + "-" + i), ++version, value(-i)));
                    }
                    engine.flush();
                }
                assertThat(engine.memtableNativeBytes())
                        .as("the scan's memtable is still held")
                        .isGreaterThanOrEqualTo(pinned);
                scan.forEachRemaining(seen::add);
            }
            // the scan's snapshot: its memtable (with whatever raced into it before the switch) and tables
            assertThat(seen.size()).isBetween(100, 200);
            for (Entry e : seen.subList(100, seen.size())) {
                assertThat(new String(e.key(), java.nio.charset.StandardCharsets.UTF_8))
                        .startsWith("t0-");
            }
            for (int i = 0; i < 100; i++) {
                assertThat(seen.get(i).key()).isEqualTo(Keys.utf8(String.format("s%03d", i)));
                assertThat(seen.get(i).value()).as("value of s%03d", i).isEqualTo(value(i));
            }
        }
    }

    @Test
    void aPointReadPinsWhatItPointsAtUntilTheCursorCloses() throws Exception {
        try (LsmEngine engine = LsmEngine.open(options())) {
            engine.apply(Entry.value(Keys.utf8("p"), ++version, value(1)));
            ReadCursor cursor = new ReadCursor();
            assertThat(engine.read(Keys.utf8("p"), cursor)).isTrue();
            engine.flush(); // the memtable holding "p" is flushed; the cursor still points into it
            for (int i = 0; i < 300; i++) {
                engine.apply(Entry.value(Keys.utf8("q" + i), ++version, value(i)));
            }
            MemorySegment s = cursor.segment();
            byte[] read = s.asSlice(cursor.valueOffset(), cursor.valueLength())
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            assertThat(read).isEqualTo(value(1));
            long before = engine.memtableNativeBytes();
            cursor.close();
            assertThat(engine.memtableNativeBytes())
                    .as("closing the cursor frees the flushed memtable")
                    .isLessThan(before);
        }
    }
}
