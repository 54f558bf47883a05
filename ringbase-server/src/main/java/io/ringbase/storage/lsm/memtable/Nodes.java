package io.ringbase.storage.lsm.memtable;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The layout of a memtable's skip-list node in its {@link Slabs}, and the reads, writes and comparisons
 * of a node's fields: static methods over the slabs and a node's address, which the JIT inlines into
 * the searches as if they were written there.
 *
 * <p><b>Layout</b> (8-byte aligned, native byte order):
 * <pre>
 * +0        u8      height h (1..{@value #MAX_HEIGHT})
 * +4        i32     size of the encoded entry
 * +8        u64     key prefix: the key's first 8 bytes, big-endian, zero-padded
 * +16       i64[h]  next node at each level (an address in the slabs; 0 = none)
 * +16+8h    entry   the entry in {@link EntryFormat} encoding (as in the WAL and SSTables)
 * </pre>
 * The key prefix decides most comparisons of a search with one unsigned compare of two longs, without
 * touching the entry (a full key comparison through {@code MemorySegment.mismatch} on every step of a
 * search was a fifth of a PUT's CPU). Keys whose prefixes tie (keys such as {@code key-0000001234} share
 * their first 8 bytes) are compared from their 9th byte on, 8 bytes at a time as big-endian longs
 * ({@code compareKeysPastPrefix}), without {@code mismatch}.
 *
 * <p><b>Order</b>: by key ({@link io.ringbase.storage.Keys#ORDER}), then newest first
 * ({@link Entry#compareNewness}); see {@link #compareNodes}.
 *
 * <p><b>Memory ordering.</b> The next pointers are the only fields written after a node is published:
 * read with acquire ({@link #next}), written with release ({@link #setNext}) or compare-and-set
 * ({@link #casNext}). Every other field is written by the inserting thread before the level-0
 * compare-and-set publishes the node, and read only by threads that reached the node through an acquire
 * read of a pointer to it, so plain accesses suffice for them.
 */
final class Nodes {

    /** Most levels of a node: with branching 4, enough for about 16 million entries. */
    static final int MAX_HEIGHT = 12;
    /** One in this many nodes of a level also gets the next level. */
    private static final int BRANCHING = 4;

    /** The address that stands for "no node" ({@link Slabs} never hands it out). */
    static final long NULL = 0;

    private static final int OFF_HEIGHT = 0;
    private static final int OFF_ENTRY_SIZE = 4;
    private static final int OFF_PREFIX = 8;
    private static final int OFF_NEXT = 16;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** 8 key bytes in a slab as a big-endian long: compared unsigned, longs order as their bytes do. */
    private static final ValueLayout.OfLong KEY_WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** 8 bytes of a search key ({@code byte[]}) as a big-endian long, as {@link #KEY_WORD}. */
    private static final VarHandle KEY_WORD_OF_ARRAY =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private Nodes() {}

    /** Bytes of the head node: the tallest node's links, no entry. */
    static long headBytes() {
        return OFF_NEXT + 8L * MAX_HEIGHT;
    }

    /** Bytes of a node of {@code height} holding an encoded entry of {@code entrySize} bytes, unaligned. */
    static long nodeBytes(int height, long entrySize) {
        return OFF_NEXT + 8L * height + entrySize;
    }

    /** Bytes a node for an entry of these sizes takes, at most (the tallest node). */
    static long maxNodeBytes(int keyLength, long valueLength) {
        return Slabs.align(OFF_NEXT + 8L * MAX_HEIGHT + EntryFormat.encodedSize(keyLength, valueLength));
    }

    /** A node height drawn at random: {@code h} with probability {@code (1/BRANCHING)^(h-1)}, capped. */
    static int randomHeight() {
        int r = ThreadLocalRandom.current().nextInt();
        int height = 1;
        while (height < MAX_HEIGHT && (r & (BRANCHING - 1)) == 0) {
            height++;
            r >>>= 2;
        }
        return height;
    }

    /** Writes the head node's height ({@link #MAX_HEIGHT}); its links are zero from the allocation. */
    static void initHead(Slabs slabs, long head) {
        slabs.slab(head).set(ValueLayout.JAVA_BYTE, Slabs.offset(head) + OFF_HEIGHT, (byte) MAX_HEIGHT);
    }

    /** Writes the height and entry size of a node just allocated. */
    static void initNode(Slabs slabs, long node, int height, long entrySize) {
        MemorySegment s = slabs.slab(node);
        long o = Slabs.offset(node);
        s.set(ValueLayout.JAVA_BYTE, o + OFF_HEIGHT, (byte) height);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, o + OFF_ENTRY_SIZE, (int) entrySize);
    }

    /** Writes a node's key prefix; {@code s} is the node's slab. */
    static void setPrefix(MemorySegment s, long node, long keyPrefix) {
        s.set(ValueLayout.JAVA_LONG, Slabs.offset(node) + OFF_PREFIX, keyPrefix);
    }

    /** The size of a node's encoded entry, as {@link #initNode} wrote it; {@code s} is the node's slab. */
    static int entrySize(MemorySegment s, long node) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, Slabs.offset(node) + OFF_ENTRY_SIZE);
    }

    static int height(Slabs slabs, long node) {
        return slabs.slab(node).get(ValueLayout.JAVA_BYTE, Slabs.offset(node) + OFF_HEIGHT);
    }

    /** The node after {@code node} at {@code level}, or {@link #NULL}; an acquire read. */
    static long next(Slabs slabs, long node, int level) {
        return (long) LONG.getAcquire(slabs.slab(node), Slabs.offset(node) + OFF_NEXT + 8L * level);
    }

    /** Sets a link of a node not yet reachable at {@code level}; a release write. */
    static void setNext(Slabs slabs, long node, int level, long next) {
        LONG.setRelease(slabs.slab(node), Slabs.offset(node) + OFF_NEXT + 8L * level, next);
    }

    /** Compare-and-set of {@code node}'s link at {@code level}: the step that publishes a node there. */
    static boolean casNext(Slabs slabs, long node, int level, long expected, long next) {
        return LONG.compareAndSet(slabs.slab(node), Slabs.offset(node) + OFF_NEXT + 8L * level, expected, next);
    }

    /** A node's key prefix; {@code s} is the node's slab, {@code o} its offset there. */
    private static long prefixOf(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_LONG, o + OFF_PREFIX);
    }

    /** Offset in the node's slab of its encoded entry. */
    static long entryOffset(Slabs slabs, long node) {
        return entryOffset(slabs.slab(node), Slabs.offset(node));
    }

    /** Offset in its slab {@code s} of the entry of the node at offset {@code o}. */
    private static long entryOffset(MemorySegment s, long o) {
        return o + OFF_NEXT + 8L * s.get(ValueLayout.JAVA_BYTE, o + OFF_HEIGHT);
    }

    /** The prefix of a key as nodes hold it: its first 8 bytes, big-endian, zero-padded. */
    static long prefix(byte[] key) {
        return EntryFormat.keyPrefix(key);
    }

    /** Node's key against a search key (with its prefix): negative if the node's sorts first. */
    static int compareToKey(Slabs slabs, long node, byte[] key, long keyPrefix) {
        MemorySegment s = slabs.slab(node);
        long o = Slabs.offset(node);
        long p = prefixOf(s, o);
        if (p != keyPrefix) {
            return Long.compareUnsigned(p, keyPrefix);
        }
        return compareKeyPastPrefix(s, entryOffset(s, o), key);
    }

    static boolean sameKey(Slabs slabs, long a, long b) {
        MemorySegment sa = slabs.slab(a);
        MemorySegment sb = slabs.slab(b);
        long oa = Slabs.offset(a);
        long ob = Slabs.offset(b);
        return prefixOf(sa, oa) == prefixOf(sb, ob)
                && compareKeysPastPrefix(sa, entryOffset(sa, oa), sb, entryOffset(sb, ob)) == 0;
    }

    /** Node order: key ascending, then newest first. */
    static int compareNodes(Slabs slabs, long a, long b) {
        MemorySegment sa = slabs.slab(a);
        MemorySegment sb = slabs.slab(b);
        long oa = Slabs.offset(a);
        long ob = Slabs.offset(b);
        long pa = prefixOf(sa, oa);
        long pb = prefixOf(sb, ob);
        if (pa != pb) {
            return Long.compareUnsigned(pa, pb);
        }
        long ea = entryOffset(sa, oa);
        long eb = entryOffset(sb, ob);
        int c = compareKeysPastPrefix(sa, ea, sb, eb);
        return c != 0 ? c : -EntryFormat.compareNewness(sa, ea, sb, eb);
    }

    /**
     * The keys of two entries whose key prefixes are equal, in {@link io.ringbase.storage.Keys#ORDER}.
     * Equal prefixes mean that their first {@code min(length, 8)} bytes are equal and that the longer
     * key's bytes up to the 8th are zero past the shorter one's end, so if either key has at most 8
     * bytes the shorter one sorts first; else the bytes from the 9th on decide, compared 8 at a time as
     * big-endian longs. The last word of the shorter length is read ending at its last byte, so it
     * overlaps bytes already found equal, instead of a loop over the last few bytes: for keys of tens
     * of bytes a few loads and compares, with no call to {@code MemorySegment.mismatch} and no slice.
     */
    private static int compareKeysPastPrefix(MemorySegment sa, long ea, MemorySegment sb, long eb) {
        int aLength = EntryFormat.keyLength(sa, ea);
        int bLength = EntryFormat.keyLength(sb, eb);
        int n = Math.min(aLength, bLength);
        long ka = EntryFormat.keyOffset(ea);
        long kb = EntryFormat.keyOffset(eb);
        for (int i = 8; i < n; i += 8) {
            int at = Math.min(i, n - 8);
            long wa = sa.get(KEY_WORD, ka + at);
            long wb = sb.get(KEY_WORD, kb + at);
            if (wa != wb) {
                return Long.compareUnsigned(wa, wb);
            }
        }
        return Integer.compare(aLength, bLength);
    }

    /** {@link #compareKeysPastPrefix} of a node's entry at {@code e} of {@code s} and a search key. */
    private static int compareKeyPastPrefix(MemorySegment s, long e, byte[] key) {
        int length = EntryFormat.keyLength(s, e);
        int n = Math.min(length, key.length);
        long k = EntryFormat.keyOffset(e);
        for (int i = 8; i < n; i += 8) {
            int at = Math.min(i, n - 8);
            long w = s.get(KEY_WORD, k + at);
            long kw = (long) KEY_WORD_OF_ARRAY.get(key, at);
            if (w != kw) {
                return Long.compareUnsigned(w, kw);
            }
        }
        return Integer.compare(length, key.length);
    }

    /** The node's entry, decoded. */
    static Entry decode(Slabs slabs, long node) {
        MemorySegment s = slabs.slab(node);
        long e = entryOffset(slabs, node);
        return EntryFormat.read(s, e, e + entrySize(s, node));
    }
}
