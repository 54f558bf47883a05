package io.ringbase.storage.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** A table behaves like a TreeMap of its entries for point gets and every range. */
class SstablePropertyTest {

    @Property(tries = 200)
    void tableMatchesTreeMapModel(@ForAll("entries") List<Entry> generated, @ForAll("keys") List<byte[]> probes)
            throws IOException {
        NavigableMap<byte[], Entry> model = new TreeMap<>(Keys.ORDER);
        for (Entry e : generated) {
            model.put(e.key(), e);
        }
        Path dir = Files.createTempDirectory("sstable-prop");
        Path file = dir.resolve("t.sst");
        try {
            Tables.write(file, model.values(), model.size());
            try (SstableReader r = SstableReader.open(file)) {
                assertThat(r.entryCount()).isEqualTo(model.size());
                assertThat(Tables.scan(r, null, null)).containsExactlyElementsOf(model.values());
                List<byte[]> all = new ArrayList<>(probes);
                all.addAll(model.keySet());
                for (byte[] k : all) {
                    assertThat(r.get(k)).isEqualTo(model.get(k));
                }
                for (int i = 0; i + 1 < probes.size(); i++) {
                    byte[] start = probes.get(i);
                    byte[] end = probes.get(i + 1);
                    List<Entry> expected = Keys.compare(start, end) <= 0
                            ? List.copyOf(model.subMap(start, true, end, false).values())
                            : List.of();
                    assertThat(Tables.scan(r, start, end)).containsExactlyElementsOf(expected);
                    assertThat(Tables.scan(r, start, null)).containsExactlyElementsOf(model.tailMap(start, true).values());
                }
            }
        } finally {
            Files.deleteIfExists(file);
            Files.delete(dir);
        }
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        Arbitrary<byte[]> value = Arbitraries.bytes().array(byte[].class).ofMaxSize(20).injectNull(0.2);
        Arbitrary<Long> version = Arbitraries.longs().between(1, Long.MAX_VALUE);
        Arbitrary<Long> expiry = Arbitraries.longs().between(1, Long.MAX_VALUE).injectNull(0.7);
        return Combinators.combine(key(), version, expiry, value)
                .as((k, v, x, val) -> new Entry(k, v, x == null ? Entry.NO_EXPIRY : x, val))
                .list().ofMaxSize(60);
    }

    @Provide
    Arbitrary<List<byte[]>> keys() {
        return key().list().ofMaxSize(20);
    }

    /** Short keys over a small alphabet, with bytes above 0x7F to exercise unsigned order. */
    private static Arbitrary<byte[]> key() {
        return Arbitraries.of((byte) 0, (byte) 1, (byte) 'a', (byte) 0x7F, (byte) 0x80, (byte) 0xFF)
                .list().ofMinSize(0).ofMaxSize(4)
                .map(bs -> {
                    byte[] k = new byte[bs.size()];
                    for (int i = 0; i < k.length; i++) {
                        k[i] = bs.get(i);
                    }
                    return k;
                });
    }

}
