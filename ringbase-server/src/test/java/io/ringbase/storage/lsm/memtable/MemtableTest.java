package io.ringbase.storage.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The off-heap memtable: ordering, newest-wins, exact slab accounting, the limit, and slab lifetime. */
class MemtableTest {

    private static Entry put(String k, long v, String value) {
        return Entry.value(Keys.utf8(k), v, Keys.utf8(value));
    }

    @Test
    void theNewestVersionOfAKeyIsReadWhateverTheOrderOfWrites() {
        Memtable mt = new Memtable(1 << 20);
        mt.put(put("a", 1, "one"));
        mt.put(put("a", 3, "three"));
        mt.put(put("a", 2, "two"));
        assertThat(new String(mt.get(Keys.utf8("a")).value(), StandardCharsets.UTF_8))
                .isEqualTo("three");
        assertThat(mt.count())
                .as("the older write after a newer one is not linked")
                .isEqualTo(2);
        assertThat(mt.maxVersion()).isEqualTo(3);
        assertThat(keys(mt, null, null)).as("iteration gives one entry per key").containsExactly("a");
        mt.release();
    }

    @Test
    void aTombstoneWinsATieAndIsKept() {
        Memtable mt = new Memtable(1 << 20);
        mt.put(put("a", 5, "x"));
        mt.put(Entry.tombstone(Keys.utf8("a"), 5));
        assertThat(mt.get(Keys.utf8("a")).isTombstone()).isTrue();
        mt.put(put("a", 5, "y")); // loses the tie to the tombstone
        assertThat(mt.get(Keys.utf8("a")).isTombstone()).isTrue();
        mt.release();
    }

    @Test
    void anIdenticalEntryIsStoredOnce() {
        Memtable mt = new Memtable(1 << 20);
        mt.put(put("a", 5, "x"));
        mt.put(put("a", 5, "x"));
        assertThat(mt.count()).isEqualTo(1);
        mt.release();
    }

    @Test
    void expiryIsKeptAndBreaksTheLastTie() {
        Memtable mt = new Memtable(1 << 20);
        mt.put(new Entry(Keys.utf8("t"), 7, 1_000, Keys.utf8("v")));
        mt.put(new Entry(Keys.utf8("t"), 7, 2_000, Keys.utf8("v")));
        assertThat(mt.get(Keys.utf8("t")).expiresAtMs()).isEqualTo(2_000);
        mt.release();
    }

    @Test
    void sizeIsTheSlabBytesTakenAndGrowsASlabAtATime() {
        Memtable mt = new Memtable(4L << 20);
        long empty = mt.sizeBytes();
        assertThat(empty).as("one 1 MiB slab holds the head node").isEqualTo(1 << 20);
        for (int i = 0; i < 100; i++) {
            mt.put(Entry.value(Keys.utf8("k" + i), 1, new byte[100]));
        }
        assertThat(mt.sizeBytes()).isEqualTo(empty);
        for (int i = 0; i < 10_000; i++) {
            mt.put(Entry.value(Keys.utf8("m" + i), 1, new byte[100]));
        }
        assertThat(mt.sizeBytes()).as("whole slabs only").isEqualTo(2L << 20);
        mt.release();
    }

    @Test
    void aFullMemtableRefusesAndStaysWithinItsLimit() {
        Memtable mt = new Memtable(64 * 1024);
        List<Integer> stored = new ArrayList<>();
        int refusals = 0;
        for (int i = 0; refusals < 50; i++) {
            if (mt.put(Entry.value(Keys.utf8("k" + i), 1, new byte[200]))) {
                stored.add(i);
            } else {
                refusals++; // a shorter node may still fit a slab's rest, so go on a while
            }
        }
        assertThat(stored.size()).isBetween(200, 300);
        assertThat(mt.sizeBytes()).isLessThanOrEqualTo(64 * 1024);
        assertThat(mt.reserve(1, 16 * 1024)).isEqualTo(Memtable.NO_ROOM);
        for (int i : stored) {
            assertThat(mt.get(Keys.utf8("k" + i))).as("k%d", i).isNotNull();
        }
        mt.release();
    }

    @Test
    void anEntryThatDoesNotFitTheRestOfASlabStartsTheNext() {
        Memtable mt = new Memtable(64 * 1024); // four 16 KiB slabs; entries over 4 KiB get a slab of their own
        long oneSlab = mt.sizeBytes();
        assertThat(oneSlab).isEqualTo(16 * 1024);
        int n = 0;
        while (mt.sizeBytes() == oneSlab) {
            assertThat(mt.put(Entry.value(Keys.utf8("k" + n), n, filled(3000, n))))
                    .isTrue();
            n++;
        }
        assertThat(n).as("entries until one ran past the first slab's end").isBetween(5, 6);
        assertThat(mt.sizeBytes()).isEqualTo(2 * oneSlab);
        assertThat(mt.put(Entry.value(Keys.utf8("large"), 1, filled(5000, 7))))
                .as("a slab of its own")
                .isTrue();
        assertThat(mt.sizeBytes()).isBetween(2 * oneSlab + 5000, 2 * oneSlab + 5200);
        for (int i = 0; i < n; i++) {
            assertThat(mt.get(Keys.utf8("k" + i)).value()).as("k%d", i).isEqualTo(filled(3000, i));
        }
        assertThat(mt.get(Keys.utf8("large")).value()).isEqualTo(filled(5000, 7));
        mt.release();
    }

    private static byte[] filled(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void anEntryLargerThanTheLimitFitsAnEmptyMemtableOnly() {
        Memtable mt = new Memtable(64 * 1024);
        assertThat(mt.put(Entry.value(Keys.utf8("big"), 1, new byte[100_000]))).isTrue();
        assertThat(mt.get(Keys.utf8("big")).value()).hasSize(100_000);
        assertThat(mt.put(Entry.value(Keys.utf8("more"), 1, new byte[100_000]))).isFalse();
        mt.release();
    }

    @Test
    void iteratorHonoursBoundsInUnsignedOrder() {
        Memtable mt = new Memtable(1 << 20);
        for (String k : List.of("a", "b", "c", "d", "\u00e9")) {
            mt.put(put(k, 1, k));
            mt.put(put(k, 2, k + "2"));
        }
        assertThat(keys(mt, "b", "d")).containsExactly("b", "c");
        assertThat(keys(mt, "c", null)).containsExactly("c", "d", "\u00e9");
        assertThat(keys(mt, null, "b")).containsExactly("a");
        assertThat(keys(mt, "d", "b")).isEmpty();
        assertThat(keys(mt, "bb", "cc")).containsExactly("c");
        mt.release();
    }

    @Test
    void forEachNewestGivesTheEncodedNewestEntryOfEveryKey() throws Exception {
        Memtable mt = new Memtable(1 << 20);
        mt.put(put("b", 1, "old"));
        mt.put(put("b", 9, "new"));
        mt.put(Entry.tombstone(Keys.utf8("a"), 4));
        List<Entry> seen = new ArrayList<>();
        mt.forEachNewest((segment, offset) ->
                seen.add(EntryFormat.read(segment, offset, offset + EntryFormat.size(segment, offset))));
        assertThat(seen).containsExactly(Entry.tombstone(Keys.utf8("a"), 4), put("b", 9, "new"));
        mt.release();
    }

    @Test
    void concurrentWritersKeepTheNewestVersion() throws Exception {
        Memtable mt = new Memtable(4 << 20);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            int thread = t;
            pool.execute(() -> {
                for (int v = thread; v < 4000; v += 4) {
                    mt.put(put("k" + (v % 10), v, "v" + v));
                }
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        for (int k = 0; k < 10; k++) {
            assertThat(mt.get(Keys.utf8("k" + k)).version()).isEqualTo(3990 + k);
        }
        mt.release();
    }

    @Test
    void theLastReleaseFreesTheSlabsAndNoRetainComesAfterIt() {
        long before = Memtable.liveNativeBytes();
        Memtable mt = new Memtable(1 << 20);
        mt.put(put("a", 1, "x"));
        assertThat(Memtable.liveNativeBytes()).isEqualTo(before + mt.sizeBytes() + Memtable.keyFilterBytes(1 << 20));
        assertThat(mt.retain()).isTrue();
        mt.release();
        assertThat(mt.isFreed()).as("a reader still holds it").isFalse();
        assertThat(mt.get(Keys.utf8("a"))).isNotNull();
        mt.release();
        assertThat(mt.isFreed()).isTrue();
        assertThat(Memtable.liveNativeBytes()).isEqualTo(before);
        assertThat(mt.retain()).isFalse();
        assertThatThrownBy(mt::release).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> mt.get(Keys.utf8("a"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void findPointsAtTheEncodedEntryInItsSlab() {
        Memtable mt = new Memtable(1 << 20);
        mt.put(new Entry(Keys.utf8("key"), 42, 9_000, Keys.utf8("value")));
        long node = mt.find(Keys.utf8("key"));
        MemorySegment s = mt.segment(node);
        long e = mt.entryOffset(node);
        assertThat(EntryFormat.version(s, e)).isEqualTo(42);
        assertThat(EntryFormat.expiresAtMs(s, e)).isEqualTo(9_000);
        assertThat(s.asSlice(EntryFormat.valueOffset(s, e), EntryFormat.valueLength(s, e))
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(Keys.utf8("value"));
        assertThat(mt.find(Keys.utf8("ke"))).isZero();
        assertThat(mt.find(Keys.utf8("keyz"))).isZero();
        mt.release();
    }

    static List<String> keys(Memtable mt, String start, String end) {
        List<String> out = new ArrayList<>();
        try (var it = mt.iterator(start == null ? null : Keys.utf8(start), end == null ? null : Keys.utf8(end))) {
            it.forEachRemaining(e -> out.add(new String(e.key(), java.nio.charset.StandardCharsets.UTF_8)));
        }
        return out;
    }
}
