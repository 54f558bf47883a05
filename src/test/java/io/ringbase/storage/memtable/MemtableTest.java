package io.ringbase.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MemtableTest {

    private static Entry put(String k, long v, String value) {
        return Entry.value(Keys.utf8(k), v, Keys.utf8(value));
    }

    @Test
    void newerVersionReplacesOlder() {
        Memtable mt = new Memtable();
        mt.put(put("a", 1, "one"));
        mt.put(put("a", 3, "three"));
        mt.put(put("a", 2, "two"));
        assertThat(new String(mt.get(Keys.utf8("a")).value())).isEqualTo("three");
        assertThat(mt.count()).isEqualTo(1);
        assertThat(mt.maxVersion()).isEqualTo(3);
    }

    @Test
    void tombstoneWinsATieAndIsKept() {
        Memtable mt = new Memtable();
        mt.put(put("a", 5, "x"));
        mt.put(Entry.tombstone(Keys.utf8("a"), 5));
        assertThat(mt.get(Keys.utf8("a")).isTombstone()).isTrue();
    }

    @Test
    void sizeAccountingTracksReplacements() {
        Memtable mt = new Memtable();
        mt.put(Entry.value(Keys.utf8("k"), 1, new byte[1000]));
        long one = mt.sizeBytes();
        assertThat(one).isGreaterThan(1000);
        mt.put(Entry.value(Keys.utf8("k"), 2, new byte[10]));
        assertThat(mt.sizeBytes()).isEqualTo(one - 990);
        mt.put(Entry.value(Keys.utf8("k"), 1, new byte[5000])); // older: ignored
        assertThat(mt.sizeBytes()).isEqualTo(one - 990);
    }

    @Test
    void iteratorHonoursBoundsInUnsignedOrder() {
        Memtable mt = new Memtable();
        for (String k : List.of("a", "b", "c", "d", "\u00e9")) {
            mt.put(put(k, 1, k));
        }
        assertThat(keys(mt, "b", "d")).containsExactly("b", "c");
        assertThat(keys(mt, "c", null)).containsExactly("c", "d", "\u00e9");
        assertThat(keys(mt, null, "b")).containsExactly("a");
        assertThat(keys(mt, "d", "b")).isEmpty();
    }

    @Test
    void concurrentWritersKeepTheNewestVersion() throws Exception {
        Memtable mt = new Memtable();
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
    }

    private static List<String> keys(Memtable mt, String start, String end) {
        List<String> out = new ArrayList<>();
        try (var it = mt.iterator(start == null ? null : Keys.utf8(start), end == null ? null : Keys.utf8(end))) {
            it.forEachRemaining(e -> out.add(new String(e.key(), java.nio.charset.StandardCharsets.UTF_8)));
        }
        return out;
    }
}
