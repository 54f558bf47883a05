package io.ringbase.cluster.repair;

import io.ringbase.cluster.ring.Ring;
import io.ringbase.hash.XxHash64;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Layouts;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The hash tree (Merkle, CRYPTO 1987) of one replica's entries in one hash range, as Dynamo (SOSP
 * 2007, section 4.7) and Cassandra's repair use it to find where two replicas differ without sending
 * the data.
 *
 * <p><b>Shape.</b> The 64-bit key-hash space ({@link Ring#keyHash}) is split into {@link #RANGES} = 16
 * ranges by the top {@link #RANGE_BITS} = 4 bits of the hash. A range's tree is a complete binary tree
 * with {@link #LEAVES} = 1024 leaves, chosen by the next {@link #LEAF_BITS} = 10 bits. A leaf's hash is
 * the wrapping sum of {@link #digest} over the entries in it (0 for an empty leaf); the sum does not
 * depend on the order the entries are added in, so one pass over a sorted scan builds the whole tree.
 * An inner node's hash is XXH64 of its two children's hashes (left, right; 8 bytes each,
 * little-endian).
 *
 * <p><b>Wire format</b> ({@link #toBytes}, {@link #WIRE_SIZE} = 8,196 bytes; integers little-endian as
 * everywhere in Ringbase, see {@link Layouts}):
 * <pre>
 * format     u8     1 ({@link #FORMAT_VERSION}; do not change the meaning of 1)
 * range      u8     0..15
 * leafBits   u8     10
 * reserved   u8     0
 * leaves     1024 x i64   leaf hashes, leaf 0 first
 * </pre>
 * Inner nodes are not sent: the reader recomputes them.
 *
 * <p><b>Leaf sets</b> (which leaves to stream, {@link #leafSetToBytes}): exactly
 * {@link #LEAF_SET_SIZE} = 128 bytes, leaf {@code 8i + j} present iff bit {@code j} (least significant
 * first) of byte {@code i} is set; the same bit order as {@link BitSet#toByteArray}, padded with zeros.
 *
 * <p>Immutable and thread-safe once built.
 */
public final class MerkleTree {

    /** Bits of the key hash that choose the range. */
    public static final int RANGE_BITS = 4;
    /** Number of ranges, {@code 2^RANGE_BITS}. */
    public static final int RANGES = 1 << RANGE_BITS;
    /** Bits of the key hash, after the range bits, that choose the leaf. */
    public static final int LEAF_BITS = 10;
    /** Leaves per tree, {@code 2^LEAF_BITS}. */
    public static final int LEAVES = 1 << LEAF_BITS;
    /** Version byte of the wire format. */
    public static final int FORMAT_VERSION = 1;
    /** Bytes of the serialized header: format, range, leafBits, reserved. */
    public static final int HEADER_SIZE = 1 + 1 + 1 + 1;
    /** Bytes of a serialized tree: header and one i64 per leaf. */
    public static final int WIRE_SIZE = HEADER_SIZE + LEAVES * Long.BYTES;
    /** Bytes of a serialized leaf set: one bit per leaf. */
    public static final int LEAF_SET_SIZE = LEAVES / Byte.SIZE;
    /** Bytes of the digest input before the key: flags, version, expiresAtMs. */
    private static final int DIGEST_HEADER_SIZE = 1 + 8 + 8;

    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_EXPIRY = 2;

    private final int range;
    /** Heap layout: node 1 is the root, node i has children 2i and 2i+1, leaf j is node LEAVES + j. */
    private final long[] nodes;

    private MerkleTree(int range, long[] leaves) {
        this.range = range;
        this.nodes = new long[2 * LEAVES];
        System.arraycopy(leaves, 0, nodes, LEAVES, LEAVES);
        byte[] pair = new byte[2 * Long.BYTES];
        ByteBuffer buf = ByteBuffer.wrap(pair).order(Layouts.ORDER);
        for (int i = LEAVES - 1; i >= 1; i--) {
            buf.putLong(0, nodes[2 * i]).putLong(Long.BYTES, nodes[2 * i + 1]);
            nodes[i] = XxHash64.hash(pair);
        }
    }

    /** The range (0..15) a key hash falls in: its top 4 bits. */
    public static int rangeOf(long keyHash) {
        return (int) (keyHash >>> (Long.SIZE - RANGE_BITS));
    }

    /** The leaf (0..1023) a key hash falls in within its range: the 10 bits after the range bits. */
    public static int leafOf(long keyHash) {
        return (int) (keyHash >>> (Long.SIZE - RANGE_BITS - LEAF_BITS)) & (LEAVES - 1);
    }

    /**
     * The 64-bit digest of one entry that leaf hashes sum: XXH64 of
     * {@code flags u8 (bit 0 tombstone, bit 1 has expiry) | version i64 | expiresAtMs i64 | key},
     * little-endian. The value bytes are left out: the version identifies a write, so two replicas
     * holding the same version of a key hold the same value (two writes with the same version and
     * different values, which needs a clock collision across coordinators, are not detected).
     */
    public static long digest(Entry e) {
        byte[] key = e.key();
        ByteBuffer buf = ByteBuffer.allocate(DIGEST_HEADER_SIZE + key.length).order(Layouts.ORDER);
        buf.put((byte) ((e.isTombstone() ? FLAG_TOMBSTONE : 0) | (e.hasExpiry() ? FLAG_EXPIRY : 0)));
        buf.putLong(e.version()).putLong(e.expiresAtMs()).put(key);
        return XxHash64.hash(buf.array());
    }

    /** Collects entries into the leaves of one range's tree. Not thread-safe. */
    public static final class Builder {
        private final int range;
        private final long[] leaves = new long[LEAVES];

        /** @throws IllegalArgumentException unless {@code 0 <= range < RANGES} */
        public Builder(int range) {
            this.range = checkRange(range);
        }

        /**
         * Adds {@code e}, whose key hashes to {@code keyHash} ({@link Ring#keyHash}).
         *
         * @throws IllegalArgumentException if the hash is not in this builder's range
         */
        public Builder add(long keyHash, Entry e) {
            if (rangeOf(keyHash) != range) {
                throw new IllegalArgumentException(
                        "key hash " + Long.toHexString(keyHash) + " is not in range " + range);
            }
            leaves[leafOf(keyHash)] += digest(e);
            return this;
        }

        public MerkleTree build() {
            return new MerkleTree(range, leaves);
        }
    }

    /** The tree of a range holding no entries. */
    public static MerkleTree empty(int range) {
        return new Builder(range).build();
    }

    /**
     * Reads a tree in the wire format above.
     *
     * @throws IllegalArgumentException if the length, format version, range or leaf bits are wrong
     */
    public static MerkleTree fromBytes(byte[] bytes) {
        if (bytes.length != WIRE_SIZE) {
            throw new IllegalArgumentException("a Merkle tree is " + WIRE_SIZE + " bytes, got " + bytes.length);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(Layouts.ORDER);
        int format = buf.get() & 0xFF;
        int range = buf.get() & 0xFF;
        int leafBits = buf.get() & 0xFF;
        int reserved = buf.get() & 0xFF;
        if (format != FORMAT_VERSION || leafBits != LEAF_BITS || reserved != 0) {
            throw new IllegalArgumentException("unsupported Merkle tree header: format " + format + ", leafBits "
                    + leafBits + ", reserved " + reserved);
        }
        checkRange(range);
        long[] leaves = new long[LEAVES];
        buf.asLongBuffer().get(leaves);
        return new MerkleTree(range, leaves);
    }

    /** This tree in the wire format above ({@link #WIRE_SIZE} bytes). */
    public byte[] toBytes() {
        ByteBuffer buf = ByteBuffer.allocate(WIRE_SIZE).order(Layouts.ORDER);
        buf.put((byte) FORMAT_VERSION).put((byte) range).put((byte) LEAF_BITS).put((byte) 0);
        buf.asLongBuffer().put(nodes, LEAVES, LEAVES);
        return buf.array();
    }

    /**
     * A set of leaf ids in the leaf-set wire format above ({@link #LEAF_SET_SIZE} bytes).
     *
     * @throws IllegalArgumentException if it holds a leaf id of 1024 or more
     */
    public static byte[] leafSetToBytes(BitSet leaves) {
        if (leaves.length() > LEAVES) {
            throw new IllegalArgumentException("leaf id " + (leaves.length() - 1) + " is not below " + LEAVES);
        }
        return Arrays.copyOf(leaves.toByteArray(), LEAF_SET_SIZE);
    }

    /**
     * Reads a leaf set in the wire format above.
     *
     * @throws IllegalArgumentException unless {@code bytes} is {@link #LEAF_SET_SIZE} bytes long
     */
    public static BitSet leafSetFromBytes(byte[] bytes) {
        if (bytes.length != LEAF_SET_SIZE) {
            throw new IllegalArgumentException("a leaf set is " + LEAF_SET_SIZE + " bytes, got " + bytes.length);
        }
        return BitSet.valueOf(bytes);
    }

    public int range() {
        return range;
    }

    /** The root hash: equal roots mean (up to a 64-bit collision) equal data. */
    public long root() {
        return nodes[1];
    }

    /** The hash of leaf {@code leaf} (0..1023). */
    public long leaf(int leaf) {
        return nodes[LEAVES + java.util.Objects.checkIndex(leaf, LEAVES)];
    }

    /**
     * The leaves whose hashes differ from {@code other}'s, found top-down: a subtree whose roots agree is
     * not descended into.
     *
     * @throws IllegalArgumentException if {@code other} is the tree of another range
     */
    public BitSet diff(MerkleTree other) {
        if (other.range != range) {
            throw new IllegalArgumentException("cannot compare range " + range + " with range " + other.range);
        }
        BitSet out = new BitSet(LEAVES);
        diff(other, 1, out);
        return out;
    }

    private void diff(MerkleTree other, int node, BitSet out) {
        if (nodes[node] == other.nodes[node]) {
            return;
        }
        if (node >= LEAVES) {
            out.set(node - LEAVES);
            return;
        }
        diff(other, 2 * node, out);
        diff(other, 2 * node + 1, out);
    }

    private static int checkRange(int range) {
        if (range < 0 || range >= RANGES) {
            throw new IllegalArgumentException("range must be 0.." + (RANGES - 1) + ", got " + range);
        }
        return range;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MerkleTree t && t.range == range && Arrays.equals(t.nodes, nodes);
    }

    @Override
    public int hashCode() {
        return 31 * range + Long.hashCode(root());
    }

    @Override
    public String toString() {
        return "MerkleTree[range=" + range + ", root=" + Long.toHexString(root()) + "]";
    }
}
