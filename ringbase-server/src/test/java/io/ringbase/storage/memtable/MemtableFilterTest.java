package io.ringbase.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The memtable's key filter: no false negatives, even read right after a concurrent insert; few false positives. */
class MemtableFilterTest {

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
            assertThat(mt.filterMightContain(Memtable.keyHash(k))).as("key %d", i).isTrue();
            assertThat(mt.find(k, Memtable.keyHash(k))).as("key %d", i).isNotZero();
        }
        int passed = 0;
        for (int i = 0; i < n; i++) {
            byte[] k = key("absent", i);
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
    void aSmallMemtableWithAFullFilterStillFindsEveryKey() {
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
