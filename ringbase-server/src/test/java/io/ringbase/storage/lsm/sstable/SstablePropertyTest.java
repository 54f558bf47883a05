package io.ringbase.storage.lsm.sstable;

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

    /** A format version and, for versions 2 to 5, the block size in bytes. */
    record Format(int version, int blockBytes) {}

    /**
     * Every format: version 1, or versions 2 to 5 with blocks of 256 B to 4 KiB, so that tables have many
     * blocks, compressed ones (repetitive values), entries larger than a block (raw blocks of their own)
     * and, in versions 3 to 5, keys sharing prefixes with the one before. Version 5's footer counts the
     * values with an expiry and keeps the largest; earlier versions report 0 for both.
     */
    @Property(tries = 400)
    void tableMatchesTreeMapModel(
            @ForAll("entries") List<Entry> generated,
            @ForAll("keys") List<byte[]> probes,
            @ForAll("formats") Format format)
            throws IOException {
        NavigableMap<byte[], Entry> model = new TreeMap<>(Keys.ORDER);
        for (Entry e : generated) {
            model.put(e.key(), e);
        }
        Path dir = Files.createTempDirectory("sstable-prop");
        Path file = dir.resolve("t.sst");
        try {
            if (format.version() == 1) {
                Tables.writeV1(file, model.values(), model.size());
            } else {
                Tables.write(file, model.values(), model.size(), format.blockBytes(), format.version());
            }
            try (SstableReader r = SstableReader.open(file)) {
                assertThat(r.formatVersion()).isEqualTo(format.version());
                assertThat(r.entryCount()).isEqualTo(model.size());
                List<Entry> expiring = model.values().stream()
                        .filter(e -> !e.isTombstone() && e.hasExpiry())
                        .toList();
                boolean counted = format.version() >= 5;
                assertThat(r.expiringCount()).isEqualTo(counted ? expiring.size() : 0);
                assertThat(r.maxExpiresAt())
                        .isEqualTo(
                                counted
                                        ? expiring.stream()
                                                .mapToLong(Entry::expiresAtMs)
                                                .max()
                                                .orElse(0)
                                        : 0);
                assertThat(Tables.drainCursor(r)).containsExactlyElementsOf(model.values());
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
                    assertThat(Tables.scan(r, start, null))
                            .containsExactlyElementsOf(
                                    model.tailMap(start, true).values());
                }
            }
        } finally {
            Files.deleteIfExists(file);
            Files.delete(dir);
        }
    }

    @Provide
    Arbitrary<Format> formats() {
        return Arbitraries.of(
                new Format(1, 0),
                new Format(2, 256),
                new Format(2, 4096),
                new Format(3, 256),
                new Format(3, 512),
                new Format(3, 4096),
                new Format(4, 256),
                new Format(4, 4096),
                new Format(5, 256),
                new Format(5, 4096));
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        Arbitrary<byte[]> repetitive =
                Arbitraries.integers().between(0, 600).map(n -> new byte[n]); // zeros: LZ4 blocks
        Arbitrary<byte[]> large =
                Arbitraries.bytes().array(byte[].class).ofMinSize(300).ofMaxSize(700); // above small blocks
        Arbitrary<byte[]> value = Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, random),
                        net.jqwik.api.Tuple.of(3, repetitive),
                        net.jqwik.api.Tuple.of(1, large))
                .injectNull(0.2);
        Arbitrary<Long> version = Arbitraries.longs().between(1, Long.MAX_VALUE);
        Arbitrary<Long> expiry = Arbitraries.longs().between(1, Long.MAX_VALUE).injectNull(0.7);
        return Combinators.combine(key(), version, expiry, value)
                .as((k, v, x, val) -> new Entry(k, v, x == null ? Entry.NO_EXPIRY : x, val))
                .list()
                .ofMaxSize(120);
    }

    @Provide
    Arbitrary<List<byte[]>> keys() {
        return key().list().ofMaxSize(20);
    }

    /**
     * Short keys over a small alphabet, with bytes above 0x7F to exercise unsigned order; neighbours in
     * order often share a prefix, or one is a prefix of the next.
     */
    private static Arbitrary<byte[]> key() {
        return Arbitraries.of((byte) 0, (byte) 1, (byte) 'a', (byte) 0x7F, (byte) 0x80, (byte) 0xFF)
                .list()
                .ofMinSize(0)
                .ofMaxSize(6)
                .map(bs -> {
                    byte[] k = new byte[bs.size()];
                    for (int i = 0; i < k.length; i++) {
                        k[i] = bs.get(i);
                    }
                    return k;
                });
    }
}
