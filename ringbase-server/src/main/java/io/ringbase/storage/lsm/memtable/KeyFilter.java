package io.ringbase.storage.lsm.memtable;

import io.ringbase.hash.XxHash64;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The key filter of a memtable, which answers most point reads of keys it does not hold without a search
 * of its skip list (scans use the skip list): static methods over the filter's state, four fields of
 * the memtable that it passes in, so that a read loads them as it would inline. The state:
 * <ul>
 *   <li>the range of its keys' 8-byte prefixes, smallest and largest ({@code minPrefix},
 *       {@code maxPrefix}, compared unsigned; all ones and zero while empty, a range no key is in), which
 *       answers a read of a key outside it at once: keys written in order (sequence numbers, timestamps)
 *       leave a memtable holding one run of keys;
 *   <li>a Bloom filter of its keys (RocksDB's memtable Bloom filter, {@code memtable_whole_key_filtering})
 *       in native memory from the memtable's arena, freed with its slabs ({@code filter} of
 *       {@link #words} 64-bit words, {@code mask} the word count less one): one word per key, four bits
 *       set in it, one bit per {@value #LIMIT_BYTES_PER_FILTER_BIT} bytes of the limit (at least 7 bits
 *       per key, since a node takes at least 56 bytes).
 * </ul>
 * A read of a key the memtable does not hold, most reads under random keys, skips the search of the skip
 * list (about {@code 2 log4(n)} nodes, each a cache miss). The key's hash is {@link XxHash64} of its
 * bytes, the hash SSTable Bloom filters use, so a read hashes its key once for the memtables and the
 * tables. (A hash index of the keys' newest nodes was tried as well: 7 times faster reads of keys the
 * memtable holds, but a cache miss and a CAS more per write, 3.5-5.6% fewer closed-loop PUTs.)
 *
 * <p>Concurrency: a key is {@link #add added} (its range by compare-and-set, its bits by an atomic or)
 * before its node is linked, which publishes the node; so a reader that can see a node sees its key in
 * the range and its bits set ({@link #rulesOut} reads them after, with volatile and acquire reads).
 */
final class KeyFilter {

    /** Bytes of memtable limit per bit of the key filter. */
    static final int LIMIT_BYTES_PER_FILTER_BIT = 8;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private KeyFilter() {}

    /** 64-bit words of the Bloom filter of a memtable of {@code limitBytes}: a power of two. */
    static int words(long limitBytes) {
        return (int) Long.highestOneBit(Math.clamp(limitBytes / LIMIT_BYTES_PER_FILTER_BIT / 64, 64, 1 << 22));
    }

    /** The hash of a key the filter takes: the one SSTable Bloom filters use. */
    static long hash(byte[] key) {
        return XxHash64.hash(key);
    }

    /** Enters a key whose node is not linked yet: its prefix's range and its bits. */
    static void add(
            AtomicLong minPrefix, AtomicLong maxPrefix, MemorySegment filter, int mask, long prefix, long hash) {
        for (long min = minPrefix.get(); Long.compareUnsigned(prefix, min) < 0; min = minPrefix.get()) {
            if (minPrefix.compareAndSet(min, prefix)) {
                break;
            }
        }
        for (long max = maxPrefix.get(); Long.compareUnsigned(prefix, max) > 0; max = maxPrefix.get()) {
            if (maxPrefix.compareAndSet(max, prefix)) {
                break;
            }
        }
        long bits = bits(hash);
        long word = word(mask, hash);
        if (((long) LONG.getAcquire(filter, word) & bits) != bits) {
            LONG.getAndBitwiseOr(filter, word, bits);
        }
    }

    /**
     * Whether the filter rules out a key of this prefix and hash: it is outside the key range (always
     * so while the memtable is empty), or its bits are not all set.
     */
    static boolean rulesOut(
            AtomicLong minPrefix, AtomicLong maxPrefix, MemorySegment filter, int mask, long prefix, long hash) {
        return Long.compareUnsigned(prefix, minPrefix.get()) < 0
                || Long.compareUnsigned(prefix, maxPrefix.get()) > 0
                || !mightContain(filter, mask, hash);
    }

    /** False if no key of this hash was added; true if one may have been (the Bloom filter alone). */
    static boolean mightContain(MemorySegment filter, int mask, long hash) {
        long bits = bits(hash);
        return ((long) LONG.getAcquire(filter, word(mask, hash)) & bits) == bits;
    }

    /** Offset of the filter word of a key's hash: its upper 32 bits pick the word. */
    private static long word(int mask, long hash) {
        return 8L * ((int) (hash >>> 32) & mask);
    }

    /** The four bits of a key's hash in its word: four 6-bit fields of its lower 32 bits. */
    private static long bits(long hash) {
        return 1L << hash | 1L << (hash >>> 6) | 1L << (hash >>> 12) | 1L << (hash >>> 18);
    }
}
