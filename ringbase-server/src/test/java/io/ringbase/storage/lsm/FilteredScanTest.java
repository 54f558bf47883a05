package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmEngine#scan(byte[], byte[], boolean, KeyFilter)} returns what the plain scan returns less the
 * keys the filter rejects, across the memtable and several tables (values, overwrites, tombstones), and
 * asks the filter about a table's keys without decoding them into entries first.
 */
class FilteredScanTest {

    @TempDir
    Path tmp;

    @Test
    void aFilteredScanIsThePlainScanLessTheRejectedKeys() throws IOException {
        Random random = new Random(7);
        long version = 1L << 40;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("d")))) {
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 2_000; i++) {
                    byte[] key = Keys.utf8("k" + random.nextInt(5_000));
                    engine.apply(
                            random.nextInt(10) == 0
                                    ? Entry.tombstone(key, ++version)
                                    : Entry.value(key, ++version, Keys.utf8("v" + version)));
                }
                if (round < 3) {
                    engine.flush(); // three tables and a memtable
                }
            }
            KeyFilter odd = key -> (Arrays.hashCode(key) & 1) == 1;
            for (boolean liveOnly : new boolean[] {false, true}) {
                List<Entry> expected = new ArrayList<>();
                try (CloseableIterator<Entry> it = engine.scan(Keys.utf8("k1"), Keys.utf8("k4"), liveOnly)) {
                    it.forEachRemaining(e -> {
                        if (odd.keep(e.key())) {
                            expected.add(e);
                        }
                    });
                }
                List<Entry> got = new ArrayList<>();
                AtomicInteger asked = new AtomicInteger();
                KeyFilter counting = key -> {
                    asked.incrementAndGet();
                    return odd.keep(key);
                };
                try (CloseableIterator<Entry> it = engine.scan(Keys.utf8("k1"), Keys.utf8("k4"), liveOnly, counting)) {
                    it.forEachRemaining(got::add);
                }
                assertThat(expected).isNotEmpty();
                assertThat(got).usingRecursiveFieldByFieldElementComparator().isEqualTo(expected);
                assertThat(asked.get()).as("the filter is asked").isGreaterThan(got.size());
            }
        }
    }
}
