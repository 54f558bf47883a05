package io.ringbase.storage.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The memtable's key order where the 8-byte key prefix of its nodes does not decide it: keys that share
 * their first 8 bytes (or more) and differ after, keys shorter than 8 bytes (whose zero-padded prefixes
 * tie with keys that go on with zero bytes), keys that are prefixes of others, and bytes from 0x80 up,
 * which sort after 0x7F (unsigned, as {@link Keys#ORDER}). Checked through every path that compares keys:
 * inserts (node against node), point reads and seeks (node against a search key), and iteration (which
 * skips the older versions of a key).
 */
class MemtableKeyOrderTest {

    /** Keys whose order a prefix-only or signed comparison gets wrong, written as hex. */
    private static final List<String> HARD_KEYS = List.of(
            "", // empty: its prefix is 0, as those of the zero keys below
            "00",
            "0000",
            "0000000000000000", // 8 zero bytes
            "000000000000000000", // 9 zero bytes
            "61", // "a"
            "6100", // "a\0": same prefix as "a"
            "61000000000000", // 7 bytes
            "6100000000000000", // 8 bytes
            "610000000000000000", // 9 bytes: same prefix as "a", "a\0"...
            "7f",
            "80",
            "ff",
            "ffffffffffffffff",
            "ffffffffffffffff00",
            "ffffffffffffffffff",
            hex("abcdefg"),
            hex("abcdefgh"),
            hex("abcdefgh") + "00",
            hex("abcdefgh") + "7f",
            hex("abcdefgh") + "80", // after ...7f: unsigned
            hex("abcdefgh") + "ff",
            // 16 and 24 bytes that differ in the first byte of a whole word past the prefix, where a signed
            // compare of the words goes wrong
            hex("abcdefgh") + "0000000000000000",
            hex("abcdefgh") + "7f00000000000000",
            hex("abcdefgh") + "8000000000000000",
            hex("abcdefgh") + "ff00000000000000",
            hex("abcdefghijklmnop") + "7f00000000000000",
            hex("abcdefghijklmnop") + "8000000000000000",
            hex("abcdefghi"),
            hex("abcdefghij"),
            hex("abcdefghijklmno"), // 15 bytes: the bytes past the prefix in one partial word
            hex("abcdefghijklmnop"), // 16 bytes: one whole word past the prefix
            hex("abcdefghijklmnoq"),
            hex("abcdefghijklmnop") + "80",
            hex("abcdefghijklmnop") + "7f",
            hex("key-000000001234"), // 16 bytes sharing 11 with the next
            hex("key-000000001235"),
            hex("key-00000000123"), // a prefix of both
            hex("key-0000000012340"),
            hex("key-0000000000000000000000001234"), // 32 bytes sharing 28
            hex("key-0000000000000000000000001235"),
            hex("key-000000000000000000000000123") + "80",
            hex("key-000000000000000000000000123") + "7f",
            hex("key-0000000000000000") + "80" + hex("00000000001234"), // differs at byte 20, the third word
            hex("key-0000000000000000") + "7f" + hex("00000000001234"));

    private static String hex(String ascii) {
        return HexFormat.of().formatHex(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    @Test
    void keysThatTieOnTheirFirst8BytesSortByTheBytesAfterUnsigned() {
        List<byte[]> keys = new ArrayList<>();
        for (String k : HARD_KEYS) {
            keys.add(bytes(k));
        }
        List<byte[]> probes = new ArrayList<>(keys);
        for (String k : HARD_KEYS) { // absent keys right beside the held ones
            probes.add(bytes(k + "01"));
            probes.add(bytes(k + "ff"));
            probes.add(bytes(k + "0000"));
        }
        for (long seed = 1; seed <= 20; seed++) { // insert orders
            List<byte[]> order = new ArrayList<>(keys);
            Collections.shuffle(order, new Random(seed));
            checkOrder(order, probes);
        }
    }

    @Property(tries = 200)
    void anyKeysIterateInUnsignedOrderAndAreFoundExactly(
            @ForAll("hardKeys") List<byte[]> keys, @ForAll("hardKeys") List<byte[]> probes) {
        List<byte[]> all = new ArrayList<>(probes);
        all.addAll(keys);
        checkOrder(keys, all);
    }

    /**
     * Puts each key twice (versions 1 and 2, in that order or the other), then checks iteration, point
     * reads and seeks against a {@code TreeSet} in {@link Keys#ORDER}.
     */
    private static void checkOrder(List<byte[]> keys, List<byte[]> probes) {
        Memtable mt = new Memtable(1 << 20);
        NavigableSet<byte[]> model = new TreeSet<>(Keys.ORDER);
        try {
            for (int i = 0; i < keys.size(); i++) {
                byte[] k = keys.get(i);
                long first = i % 2 == 0 ? 1 : 2;
                assertThat(mt.put(Entry.value(k, first, k))).isTrue();
                assertThat(mt.put(Entry.value(k, 3 - first, k))).isTrue();
                model.add(k);
            }
            assertThat(hexKeys(scan(mt, null))).as("iteration order").containsExactlyElementsOf(hexKeys(model));
            for (byte[] p : probes) {
                Entry e = mt.get(p);
                if (model.contains(p)) {
                    assertThat(e).as("get %s", HexFormat.of().formatHex(p)).isNotNull();
                    assertThat(e.key()).isEqualTo(p);
                    assertThat(e.version()).as("the newest version").isEqualTo(2);
                } else {
                    assertThat(e)
                            .as("get absent %s", HexFormat.of().formatHex(p))
                            .isNull();
                }
                List<Entry> from = scan(mt, p);
                assertThat(hexKeys(from))
                        .as("seek to %s", HexFormat.of().formatHex(p))
                        .containsExactlyElementsOf(hexKeys(model.tailSet(p, true)));
            }
        } finally {
            mt.release();
        }
    }

    private static List<Entry> scan(Memtable mt, byte[] start) {
        List<Entry> out = new ArrayList<>();
        try (var it = mt.iterator(start, null)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static List<String> hexKeys(Iterable<?> keysOrEntries) {
        List<String> out = new ArrayList<>();
        for (Object o : keysOrEntries) {
            out.add(HexFormat.of().formatHex(o instanceof Entry e ? e.key() : (byte[]) o));
        }
        return out;
    }

    @Provide
    Arbitrary<List<byte[]>> hardKeys() {
        // a shared stem of 0 to 32 bytes, then a short tail of the bytes where order goes wrong
        Arbitrary<byte[]> stems = Arbitraries.of(
                        "",
                        "a",
                        "abcdefg",
                        "abcdefgh",
                        "abcdefghijklmno",
                        "key-000000001234",
                        "key-0000000000000000000000001234")
                .map(s -> s.getBytes(StandardCharsets.US_ASCII));
        Arbitrary<List<Byte>> tails = Arbitraries.of((byte) 0, (byte) 1, (byte) 0x7f, (byte) 0x80, (byte) 0xff)
                .list()
                .ofMaxSize(10);
        Arbitrary<byte[]> keys = Combinators.combine(stems, tails).as((stem, tail) -> {
            byte[] k = new byte[stem.length + tail.size()];
            System.arraycopy(stem, 0, k, 0, stem.length);
            for (int i = 0; i < tail.size(); i++) {
                k[stem.length + i] = tail.get(i);
            }
            return k;
        });
        return keys.list().ofMaxSize(60);
    }
}
