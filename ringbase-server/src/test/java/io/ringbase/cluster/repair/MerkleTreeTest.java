package io.ringbase.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MerkleTreeTest {

    private static final int RANGE = 5;

    /** {@code n} distinct keys whose hashes fall in {@link #RANGE}, in distinct leaves. */
    private static List<byte[]> keysInRange(int n) {
        List<byte[]> out = new ArrayList<>();
        BitSet usedLeaves = new BitSet();
        for (int i = 0; out.size() < n; i++) {
            byte[] key = Keys.utf8("key-" + i);
            long h = Ring.keyHash(key);
            if (MerkleTree.rangeOf(h) == RANGE && !usedLeaves.get(MerkleTree.leafOf(h))) {
                usedLeaves.set(MerkleTree.leafOf(h));
                out.add(key);
            }
        }
        return out;
    }

    private static List<Entry> entries(List<byte[]> keys, long version) {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            out.add(
                    i % 7 == 0
                            ? Entry.tombstone(keys.get(i), version + i)
                            : Entry.value(keys.get(i), version + i, Keys.utf8("v" + i)));
        }
        return out;
    }

    private static MerkleTree tree(List<Entry> entries) {
        MerkleTree.Builder b = new MerkleTree.Builder(RANGE);
        for (Entry e : entries) {
            b.add(Ring.keyHash(e.key()), e);
        }
        return b.build();
    }

    @Test
    void rangeAndLeafAreTheTopBitsOfTheKeyHash() {
        long h = 0xABCD_0000_0000_0000L; // 1010 1011110011 01...
        assertThat(MerkleTree.rangeOf(h)).isEqualTo(0xA);
        assertThat(MerkleTree.leafOf(h)).isEqualTo(0b1011110011);
        assertThat(MerkleTree.rangeOf(-1L)).isEqualTo(15);
        assertThat(MerkleTree.leafOf(-1L)).isEqualTo(1023);
        assertThat(MerkleTree.rangeOf(0)).isZero();
        assertThat(MerkleTree.leafOf(0)).isZero();
    }

    @Test
    void identicalDataHasNoDiff() {
        List<Entry> data = entries(keysInRange(200), 1L << 40);
        assertThat(tree(data).diff(tree(data)).isEmpty()).isTrue();
        assertThat(tree(data).root()).isEqualTo(tree(data).root());
        assertThat(MerkleTree.empty(RANGE).diff(MerkleTree.empty(RANGE)).isEmpty())
                .isTrue();
    }

    @Test
    void oneChangedVersionDiffersInExactlyItsLeaf() {
        List<Entry> data = entries(keysInRange(200), 1L << 40);
        List<Entry> changed = new ArrayList<>(data);
        Entry old = changed.get(42);
        changed.set(42, new Entry(old.key(), old.version() + 1, old.expiresAtMs(), old.value()));

        BitSet diff = tree(data).diff(tree(changed));

        assertThat(diff.cardinality()).isEqualTo(1);
        assertThat(diff.nextSetBit(0)).isEqualTo(MerkleTree.leafOf(Ring.keyHash(old.key())));
        assertThat(tree(changed).diff(tree(data))).isEqualTo(diff);
    }

    @Test
    void tombstoneFlagAndExpiryChangeTheDigestButTheValueBytesDoNot() {
        byte[] key = Keys.utf8("k");
        Entry value = Entry.value(key, 100, Keys.utf8("a"));
        assertThat(MerkleTree.digest(Entry.value(key, 100, Keys.utf8("b")))).isEqualTo(MerkleTree.digest(value));
        assertThat(MerkleTree.digest(Entry.tombstone(key, 100))).isNotEqualTo(MerkleTree.digest(value));
        assertThat(MerkleTree.digest(new Entry(key, 100, 5000, Keys.utf8("a")))).isNotEqualTo(MerkleTree.digest(value));
        assertThat(MerkleTree.digest(Entry.value(Keys.utf8("j"), 100, Keys.utf8("a"))))
                .isNotEqualTo(MerkleTree.digest(value));
    }

    @Test
    void missingKeyDiffersInItsLeaf() {
        List<Entry> data = entries(keysInRange(50), 1L << 40);
        List<Entry> fewer = new ArrayList<>(data.subList(1, data.size()));
        assertThat(tree(data).diff(tree(fewer)).stream().boxed().toList())
                .containsExactly(MerkleTree.leafOf(Ring.keyHash(data.getFirst().key())));
    }

    @Test
    void insertionOrderDoesNotMatter() {
        List<Entry> data = entries(keysInRange(300), 1L << 40);
        List<Entry> shuffled = new ArrayList<>(data);
        Collections.shuffle(shuffled, new Random(7));
        assertThat(tree(shuffled)).isEqualTo(tree(data));
    }

    @Test
    void serializationRoundTrips() {
        MerkleTree t = tree(entries(keysInRange(100), 1L << 40));
        byte[] bytes = t.toBytes();
        assertThat(bytes).hasSize(MerkleTree.WIRE_SIZE).hasSize(8196);
        assertThat(bytes[0]).isEqualTo((byte) 1);
        assertThat(bytes[1]).isEqualTo((byte) RANGE);
        assertThat(bytes[2]).isEqualTo((byte) 10);
        MerkleTree back = MerkleTree.fromBytes(bytes);
        assertThat(back).isEqualTo(t);
        assertThat(back.root()).isEqualTo(t.root());
        assertThat(back.diff(t).isEmpty()).isTrue();
    }

    @Test
    void leafHashesAreLittleEndianAfterTheHeader() {
        Entry e = Entry.value(keysInRange(1).getFirst(), 9, Keys.utf8("v"));
        long h = Ring.keyHash(e.key());
        byte[] bytes = new MerkleTree.Builder(RANGE).add(h, e).build().toBytes();
        int at = MerkleTree.HEADER_SIZE + 8 * MerkleTree.leafOf(h);
        long read = 0;
        for (int i = 7; i >= 0; i--) {
            read = (read << 8) | (bytes[at + i] & 0xFF);
        }
        assertThat(read).isEqualTo(MerkleTree.digest(e));
    }

    @Test
    void malformedTreesAreRejected() {
        byte[] good = MerkleTree.empty(RANGE).toBytes();
        assertThatThrownBy(() -> MerkleTree.fromBytes(java.util.Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(IllegalArgumentException.class);
        for (int[] flip : new int[][] {{0, 2}, {1, 16}, {2, 11}, {3, 1}}) {
            byte[] bad = good.clone();
            bad[flip[0]] = (byte) flip[1];
            assertThatThrownBy(() -> MerkleTree.fromBytes(bad))
                    .as("byte %d = %d", flip[0], flip[1])
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void treesOfDifferentRangesCannotBeCompared() {
        assertThatThrownBy(() -> MerkleTree.empty(1).diff(MerkleTree.empty(2)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MerkleTree.Builder(16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MerkleTree.Builder(RANGE).add(0L, Entry.tombstone(new byte[0], 1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leafSetsRoundTripInFixedSize() {
        BitSet leaves = new BitSet();
        leaves.set(0);
        leaves.set(9);
        leaves.set(1023);
        byte[] bytes = MerkleTree.leafSetToBytes(leaves);
        assertThat(bytes).hasSize(128);
        assertThat(bytes[0]).isEqualTo((byte) 1);
        assertThat(bytes[1]).isEqualTo((byte) 2);
        assertThat(bytes[127]).isEqualTo((byte) 0x80);
        assertThat(MerkleTree.leafSetFromBytes(bytes)).isEqualTo(leaves);
        assertThat(MerkleTree.leafSetToBytes(new BitSet())).hasSize(128).containsOnly(0);
        BitSet tooBig = new BitSet();
        tooBig.set(1024);
        assertThatThrownBy(() -> MerkleTree.leafSetToBytes(tooBig)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MerkleTree.leafSetFromBytes(new byte[127]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
