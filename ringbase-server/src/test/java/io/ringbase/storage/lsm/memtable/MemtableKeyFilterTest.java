package io.ringbase.storage.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The memtable's key filter (key range, Bloom filter): no key missed, even read right after a
 * concurrent insert, and the newest version of a key whatever the order of its writes; few absent keys
 * let through.
 */
class MemtableKeyFilterTest {

    private static byte[] key(String prefix, int i) {
        return Keys.utf8(prefix + i);
    }

    @Test
    void everyInsertedKeyIsFoundAndMostAbsentKeysAreFilteredOut() {
        Memtable mt = new Memtable(16 << 20);
        int n = 50_000;
        for (int i = 0; i < n; i++) {
            assertThat(mt.put(Entry.value(key("k", i), i + 1, Keys.utf8("v")))).isTrue();
        }
        for (int i = 0; i < n; i++) {
            byte[] k = key("k", i);
            assertThat(mt.filterMightContain(Memtable.keyHash(k)))
                    .as("key %d", i)
                    .isTrue();
            assertThat(mt.find(k, Memtable.keyHash(k))).as("key %d", i).isNotZero();
            assertThat(mt.get(k).version()).isEqualTo(i + 1);
        }
        int passed = 0;
        for (int i = 0; i < n; i++) {
            byte[] k = Keys.utf8("k" + i + "x"); // inside the memtable's key range
            if (mt.filterMightContain(Memtable.keyHash(k))) {
                passed++;
            }
            assertThat(mt.find(k)).isZero();
        }
        // 50,000 keys in 2 Mi bits (about 42 bits per key, 4 bits in one word): well under 1% expected
        assertThat(passed).as("absent keys the filter let through, of %d", n).isLessThan(n / 100);
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
            assertThat(new String(e.value(), StandardCharsets.UTF_8)).isEqualTo("r2");
        }
        mt.put(Entry.tombstone(key("k", 7), 13));
        assertThat(mt.get(key("k", 7)).isTombstone()).isTrue();
        assertThat(mt.get(key("k", keys))).as("never written").isNull();
        assertThat(mt.get(key("a", 1))).as("below the range").isNull();
        assertThat(mt.get(key("z", 1))).as("above the range").isNull();
        mt.release();
    }

    @Test
    void aSmallMemtableWithASaturatedFilterStillFindsEveryKey() {
        Memtable mt = new Memtable(4096 * 16); // the smallest filter, 64 words, saturated below
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
        java.util.concurrent.atomic.AtomicLongArray acknowledged =
                new java.util.concurrent.atomic.AtomicLongArray(keys);
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
