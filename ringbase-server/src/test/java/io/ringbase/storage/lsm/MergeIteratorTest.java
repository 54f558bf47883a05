package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.memtable.Memtable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MergeIteratorTest {

    private static Entry v(String k, long version, String value) {
        return Entry.value(Keys.utf8(k), version, Keys.utf8(value));
    }

    private static Memtable source(Entry... entries) {
        Memtable mt = new Memtable(1 << 20);
        for (Entry e : entries) {
            mt.put(e);
        }
        return mt;
    }

    @Test
    void newestVersionWinsWhicheverSourceHoldsIt() {
        Memtable a = source(v("k1", 5, "a5"), v("k2", 1, "a1"));
        Memtable b = source(v("k1", 3, "b3"), v("k2", 9, "b9"), v("k3", 2, "b2"));
        List<String> out =
                values(new MergeIterator(List.of(a.iterator(null, null), b.iterator(null, null)), false, () -> 0));
        assertThat(out).containsExactly("k1=a5", "k2=b9", "k3=b2");
    }

    @Test
    void liveOnlyHidesTombstonesAndExpiredEntries() {
        Memtable a = source(
                Entry.tombstone(Keys.utf8("k1"), 5),
                new Entry(Keys.utf8("k2"), 1, 100, Keys.utf8("x")),
                new Entry(Keys.utf8("k3"), 1, 300, Keys.utf8("y")));
        Memtable b = source(v("k1", 3, "old"), v("k4", 1, "z"));
        List<String> out =
                values(new MergeIterator(List.of(a.iterator(null, null), b.iterator(null, null)), true, () -> 200));
        assertThat(out).containsExactly("k3=y", "k4=z");
    }

    @Test
    void aSourceFailingOnItsFirstEntryClosesEverySource() {
        AtomicInteger closed = new AtomicInteger();
        CloseableIterator<Entry> before = CloseableIterator.releasing(closed::incrementAndGet);
        CloseableIterator<Entry> failing = new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                throw new IllegalStateException("damaged block");
            }

            @Override
            public Entry next() {
                throw new IllegalStateException("damaged block");
            }

            @Override
            public void close() {
                closed.incrementAndGet();
            }
        };
        CloseableIterator<Entry> after = CloseableIterator.releasing(closed::incrementAndGet);
        assertThatThrownBy(() -> new MergeIterator(List.of(before, failing, after), false, () -> 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("damaged block");
        assertThat(closed).as("the merge owns its sources: all closed").hasValue(3);
    }

    @Test
    void matchesAModelOnRandomSources() {
        Random rnd = new Random(42);
        for (int round = 0; round < 50; round++) {
            int n = 1 + rnd.nextInt(5);
            List<Memtable> sources = new ArrayList<>();
            TreeMap<String, Entry> model = new TreeMap<>();
            for (int s = 0; s < n; s++) {
                Memtable mt = new Memtable(1 << 20);
                for (int i = 0; i < 100; i++) {
                    String k = "k" + rnd.nextInt(60);
                    Entry e = rnd.nextInt(5) == 0
                            ? Entry.tombstone(Keys.utf8(k), rnd.nextInt(1000))
                            : v(k, rnd.nextInt(1000), "s" + s + "i" + i);
                    mt.put(e);
                }
                sources.add(mt);
            }
            for (Memtable mt : sources) {
                try (var it = mt.iterator(null, null)) {
                    it.forEachRemaining(e -> model.merge(new String(e.key(), StandardCharsets.UTF_8), e, Entry::newer));
                }
            }
            List<CloseableIterator<Entry>> its = new ArrayList<>();
            sources.forEach(mt -> its.add(mt.iterator(null, null)));
            List<Entry> merged = new ArrayList<>();
            try (MergeIterator m = new MergeIterator(its, false, () -> 0)) {
                m.forEachRemaining(merged::add);
            }
            assertThat(merged).containsExactlyElementsOf(model.values());
        }
    }

    private static List<String> values(MergeIterator it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(e -> out.add(new String(e.key(), StandardCharsets.UTF_8) + "="
                    + (e.value() == null ? "<tombstone>" : new String(e.value(), StandardCharsets.UTF_8))));
        }
        return out;
    }
}
