package io.ringbase.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The memtable's key index (key range, hash slots): no key missed, even read right after a concurrent
 * insert; the newest version of a key whatever the order of its writes; the skip list again for an
 * overflowed home slot and once the hash slots are full.
 */
class MemtableKeyIndexTest {

    private static byte[] key(String prefix, int i) {
        return Keys.utf8(prefix + i);
    }

    @Test
    void everyInsertedKeyIsFoundAndNoAbsentKeyInsideTheRange() {
        Memtable mt = new Memtable(16 << 20);
        int n = 50_000;
        for (int i = 0; i < n; i++) {
            assertThat(mt.put(Entry.value(key("k", i), i + 1, Keys.utf8("v")))).isTrue();
        }
        assertThat(mt.keyIndexFull()).isFalse();
        for (int i = 0; i < n; i++) {
            byte[] k = key("k", i);
            assertThat(mt.find(k, Memtable.keyHash(k))).as("key %d", i).isNotZero();
            assertThat(mt.get(k).version()).isEqualTo(i + 1);
        }
        for (int i = 0; i < n; i++) {
            assertThat(mt.find(key("k", i), Memtable.keyHash(key("k", i)))).isNotZero();
            assertThat(mt.find(Keys.utf8("k" + i + "x"))).as("k%dx, inside the range", i).isZero();
        }
        mt.release();
    }

    @Test
    void theNewestVersionIsReadWhateverTheOrderOfWritesAndDuplicates() {
        Memtable mt = new Memtable(1 << 20);
        int keys = 2_000;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < keys; i++) {
                long version = round == 1 ? 1 : 10 + round; // round 1 writes an older version after a newer one
                mt.put(Entry.value(key("k", i), version, Keys.utf8("r" + round)));
                mt.put(Entry.value(key("k", i), version, Keys.utf8("r" + round))); // an identical entry: refused
            }
        }
        for (int i = 0; i < keys; i++) {
            Entry e = mt.get(key("k", i));
            assertThat(e.version()).as("key %d", i).isEqualTo(12);
            assertThat(new String(e.value())).isEqualTo("r2");
        }
        mt.put(Entry.tombstone(key("k", 7), 13));
        assertThat(mt.get(key("k", 7)).isTombstone()).isTrue();
        assertThat(mt.get(key("k", keys))).as("never written").isNull();
        assertThat(mt.get(key("a", 1))).as("below the range").isNull();
        assertThat(mt.get(key("z", 1))).as("above the range").isNull();
        mt.release();
    }

    @Test
    void onceTheHashSlotsAreFullReadsSearchTheSkipListAndStillSeeNewerVersions() {
        Memtable mt = new Memtable(256 << 10); // 4,096 slots, 3,072 of them usable
        for (int i = 0; i < 2_500; i++) {
            assertThat(mt.put(Entry.value(key("k", i), 1, Keys.utf8("a")))).isTrue();
        }
        assertThat(mt.keyIndexFull()).isFalse();
        for (int i = 0; i < 700; i++) {
            assertThat(mt.put(Entry.value(key("m", i), 1, Keys.utf8("b")))).isTrue();
        }
        assertThat(mt.keyIndexFull()).as("3,200 keys for 3,072 usable slots").isTrue();
        for (int i = 0; i < 1_000; i += 2) { // newer versions that get no slot
            assertThat(mt.put(Entry.value(key("k", i), 2, Keys.utf8("n")))).isTrue();
        }
        for (int i = 0; i < 2_500; i++) {
            Entry e = mt.get(key("k", i));
            boolean rewritten = i < 1_000 && i % 2 == 0;
            assertThat(e.version()).as("key k%d", i).isEqualTo(rewritten ? 2 : 1);
            assertThat(new String(e.value())).isEqualTo(rewritten ? "n" : "a");
        }
        for (int i = 0; i < 700; i++) {
            assertThat(mt.get(key("m", i))).as("key m%d", i).isNotNull();
        }
        assertThat(mt.get(key("k", 2_500))).isNull();
        mt.release();
    }

    @Test
    void keysWhoseHomeSlotsOverflowAreFoundThroughTheSkipList() {
        Memtable mt = new Memtable(256 << 10); // 4,096 slots
        int home = mt.homeSlot(key("x", 0));
        java.util.List<byte[]> crowd = new java.util.ArrayList<>(); // 3 x MAX_PROBES keys of one home slot
        for (int i = 0; crowd.size() < 3 * Memtable.MAX_PROBES; i++) {
            if (mt.homeSlot(key("x", i)) == home) {
                crowd.add(key("x", i));
            }
        }
        for (byte[] k : crowd) {
            assertThat(mt.put(Entry.value(k, 1, Keys.utf8("old")))).isTrue();
        }
        for (byte[] k : crowd) {
            assertThat(mt.put(Entry.value(k, 2, Keys.utf8("new")))).isTrue();
        }
        assertThat(mt.keyIndexFull()).as("only one home overflowed, not the table").isFalse();
        for (byte[] k : crowd) {
            Entry e = mt.get(k);
            assertThat(e.version()).as(new String(k)).isEqualTo(2);
            assertThat(new String(e.value())).isEqualTo("new");
        }
        int absentOfThatHome = 0;
        for (int i = 0; absentOfThatHome < 10; i++) {
            if (mt.homeSlot(key("y", i)) == home) {
                assertThat(mt.get(key("y", i))).isNull();
                absentOfThatHome++;
            }
        }
        mt.release();
    }

    @Test
    void aSmallMemtableWithAFullIndexStillFindsEveryKey() {
        Memtable mt = new Memtable(4096 * 16); // the smallest index, 1,024 slots, full below
        int stored = 0;
        while (mt.put(Entry.value(key("k", stored), 1, Keys.utf8("v")))) {
            stored++;
        }
        assertThat(stored).isGreaterThan(500);
        for (int i = 0; i < stored; i++) {
            assertThat(mt.find(key("k", i))).as("key %d", i).isNotZero();
        }
        mt.release();
    }

    @Test
    void readersNeverSeeAVersionOlderThanOneAlreadyReturnedOrAcknowledged() throws Exception {
        Memtable mt = new Memtable(64 << 20);
        int keys = 64;
        int versions = 3_000;
        java.util.concurrent.atomic.AtomicLongArray acknowledged = new java.util.concurrent.atomic.AtomicLongArray(keys);
        AtomicInteger violations = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread[] writers = new Thread[2];
        for (int w = 0; w < writers.length; w++) {
            int parity = w;
            writers[w] = Thread.ofPlatform().start(() -> {
                for (int v = 1; v <= versions; v++) {
                    for (int k = 0; k < keys; k++) {
                        long version = 2L * v + parity; // the two writers interleave versions of every key
                        mt.put(Entry.value(key("k", k), version, Keys.utf8("v")));
                        acknowledged.accumulateAndGet(k, version, Math::max);
                    }
                }
            });
        }
        Thread reader = Thread.ofPlatform().start(() -> {
            long[] seen = new long[keys];
            while (!done.get()) {
                for (int k = 0; k < keys; k++) {
                    long floor = Math.max(seen[k], acknowledged.get(k));
                    Entry e = mt.get(key("k", k));
                    long got = e == null ? 0 : e.version();
                    if (got < floor) {
                        violations.incrementAndGet();
                    }
                    seen[k] = Math.max(seen[k], got);
                }
            }
        });
        for (Thread w : writers) {
            w.join(120_000);
        }
        done.set(true);
        reader.join(60_000);
        assertThat(violations.get()).isZero();
        for (int k = 0; k < keys; k++) {
            assertThat(mt.get(key("k", k)).version()).isEqualTo(2L * versions + 1);
        }
        mt.release();
    }

    @Test
    void aKeyIsFoundByAnotherThreadAsSoonAsItsInsertReturns() throws Exception {
        Memtable mt = new Memtable(64 << 20);
        int n = 100_000;
        BlockingQueue<Integer> inserted = new ArrayBlockingQueue<>(1024);
        AtomicInteger misses = new AtomicInteger();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    Integer k = inserted.poll(30, TimeUnit.SECONDS);
                    if (k == null) {
                        return;
                    }
                    if (mt.find(key("k", k)) == 0) {
                        misses.incrementAndGet();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        for (int i = 0; i < n; i++) {
            assertThat(mt.put(Entry.value(key("k", i), 1, Keys.utf8("v")))).isTrue();
            inserted.put(i);
        }
        reader.join(60_000);
        assertThat(reader.isAlive()).isFalse();
        assertThat(misses.get()).isZero();
        mt.release();
    }
}
