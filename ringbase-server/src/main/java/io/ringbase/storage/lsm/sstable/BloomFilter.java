package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.hash.XxHash64;
import io.ringbase.storage.CorruptionException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The Bloom filter section of an SSTable ({@code docs/format.md}, section 4.4): {@link Builder} sets bits
 * in an off-heap segment while a table is written; a {@code BloomFilter} probes the section in the
 * mapped file.
 *
 * <pre>
 * bloom     := bitCount probeCount bits
 * bitCount   u64   number of bits m, a positive multiple of 64
 * probeCount u32   number of probes k, 1 .. 30
 * bits       m / 8 bytes; bit b is bit (b mod 8) of byte (b div 8), least significant bit first
 * </pre>
 *
 * Key hashing: {@code h = XXH64(key, seed 0)} ({@link #hash}). Two layouts ({@link Layout}):
 * <ul>
 *   <li>{@link Layout#STANDARD} (format versions 1-3): probe {@code i} (0 &le; i &lt; k) sets or tests bit
 *       {@code g_i mod m} where {@code g_i = h + i * rotateLeft(h, 32)} in 64-bit wrapping arithmetic and
 *       both {@code g_i} and {@code mod} are unsigned (Kirsch-Mitzenmacher double hashing). Each probe can
 *       be a cache miss.</li>
 *   <li>{@link Layout#BLOCKED} (format version 4): a cache-blocked filter (Putze, Sanders and Singler,
 *       "Cache-, Hash- and Space-Efficient Bloom Filters", 2007; the probe rule of RocksDB's
 *       {@code FastLocalBloom}): {@code m} is a multiple of 512 and the bits are blocks of 512 bits (64
 *       bytes); the low 32 bits of {@code h} choose block {@code (h mod 2^32) * (m / 512) div 2^32}, and
 *       with {@code g = h div 2^32} (32 bits), probe {@code i} is bit {@code g_i div 2^23} of that block,
 *       where {@code g_0 = g} and {@code g_(i+1) = g_i * 0x9E3779B9 mod 2^32}. All of a key's probes fall in
 *       one block: one or two cache lines per lookup, however many probes.</li>
 * </ul>
 *
 * <p>A {@code BloomFilter} is immutable and thread-safe; a {@link Builder} is for one writer at a time.
 */
final class BloomFilter {

    /**
     * Where a key's probes go: anywhere in the filter (format versions 1-3), or in one block of 512 bits
     * (format version 4). See the class comment.
     */
    enum Layout {
        STANDARD(64, 10, 7),
        BLOCKED(BLOCK_BITS, 11, 6);

        /** The filter's bit count is a multiple of this. */
        final int bitMultiple;
        /**
         * Bits per expected key a writer gives the filter: ~0.82% false positives with 10 bits and 7
         * probes (STANDARD), ~0.64% with 11 bits and 6 probes (BLOCKED; 10 bits would give ~0.96%).
         */
        final int bitsPerKey;
        /** Probes per key a writer uses. */
        final int probes;

        Layout(int bitMultiple, int bitsPerKey, int probes) {
            this.bitMultiple = bitMultiple;
            this.bitsPerKey = bitsPerKey;
            this.probes = probes;
        }

        /** The layout of SSTable format version {@code formatVersion}. */
        static Layout of(int formatVersion) {
            return formatVersion >= 4 ? BLOCKED : STANDARD;
        }
    }

    /** Bits in a block of a {@link Layout#BLOCKED} filter: one 64-byte cache line. */
    static final int BLOCK_BITS = 512;

    static final int MAX_PROBES = 30;
    /** Largest filter written, in bits (4 GiB); more keys than ~3.4 billion only raise the false-positive rate. */
    static final long MAX_BITS = 1L << 35;
    /** Bytes before the bits: bitCount, probeCount. */
    static final int HEADER_SIZE = 8 + 4;

    private final MemorySegment bits;
    private final long bitCount;
    private final int probes;
    private final Layout layout;
    /** {@code 2^64 mod bitCount}. */
    private final long wrapRemainder;

    private BloomFilter(MemorySegment bits, long bitCount, int probes, Layout layout) {
        this.bits = bits;
        this.bitCount = bitCount;
        this.probes = probes;
        this.layout = layout;
        this.wrapRemainder = (Long.remainderUnsigned(-1L, bitCount) + 1) % bitCount; // 2^64 mod m
    }

    /**
     * Reads the filter whose section is {@code section} (a slice of the mapped file starting at byte
     * {@code fileOffset}); the caller has already verified the section's checksum.
     *
     * @throws CorruptionException if the header is invalid or does not match the section length
     */
    static BloomFilter read(Path file, MemorySegment section, long fileOffset, Layout layout)
            throws CorruptionException {
        if (section.byteSize() < HEADER_SIZE) {
            throw new CorruptionException(
                    file, fileOffset, "Bloom section of " + section.byteSize() + " bytes is shorter than its header");
        }
        long m = section.get(I64, 0);
        int k = section.get(I32, 8);
        if (m <= 0 || m % layout.bitMultiple != 0 || m > MAX_BITS) {
            throw new CorruptionException(file, fileOffset, "invalid Bloom bit count " + m);
        }
        if (k < 1 || k > MAX_PROBES) {
            throw new CorruptionException(file, fileOffset + 8, "invalid Bloom probe count " + k);
        }
        if (section.byteSize() != HEADER_SIZE + m / 8) {
            throw new CorruptionException(
                    file, fileOffset, "Bloom section of " + section.byteSize() + " bytes does not hold " + m + " bits");
        }
        return new BloomFilter(section.asSlice(HEADER_SIZE), m, k, layout);
    }

    /** False if {@code key} was certainly not added; true if it may have been. */
    boolean mightContain(byte[] key) {
        return mightContainHash(hash(key));
    }

    /**
     * {@link #mightContain(byte[])} of the key whose {@link #hash} is {@code h}. Probe {@code i} is bit
     * {@code (h + i * delta) mod 2^64 mod m} (section 4.4); rather than one 64-bit division per probe,
     * the remainder is carried from one probe to the next: add {@code delta mod m}, and when the 64-bit
     * sum wraps, subtract {@code 2^64 mod m}. Two divisions per lookup at most, whatever the probes.
     */
    boolean mightContainHash(long h) {
        if (layout == Layout.BLOCKED) {
            return mightContainBlocked(h);
        }
        long m = bitCount;
        long bit = Long.remainderUnsigned(h, m);
        if ((bits.get(U8, bit >>> 3) & (1 << (bit & 7))) == 0) {
            return false;
        }
        long delta = Long.rotateLeft(h, 32);
        long step = Long.remainderUnsigned(delta, m);
        long sum = h; // h + i * delta, wrapping as the format's formula does
        for (int i = 1; i < probes; i++) {
            long next = sum + delta;
            bit += step;
            if (bit >= m) {
                bit -= m;
            }
            if (Long.compareUnsigned(next, sum) < 0) { // wrapped past 2^64
                bit -= wrapRemainder;
                if (bit < 0) {
                    bit += m;
                }
            }
            sum = next;
            if ((bits.get(U8, bit >>> 3) & (1 << (bit & 7))) == 0) {
                return false;
            }
        }
        return true;
    }

    /** {@link #mightContainHash} in a {@link Layout#BLOCKED} filter: every probe in one 64-byte block. */
    private boolean mightContainBlocked(long h) {
        long block = blockByteOffset(h, bitCount);
        int g = (int) (h >>> 32);
        for (int i = 0; i < probes; i++) {
            int bit = g >>> 23; // 0 .. 511
            if ((bits.get(U8, block + (bit >>> 3)) & (1 << (bit & 7))) == 0) {
                return false;
            }
            g *= BLOCK_PROBE_MULTIPLIER;
        }
        return true;
    }

    /** The multiplier from one probe's 32 bits to the next in a {@link Layout#BLOCKED} filter. */
    private static final int BLOCK_PROBE_MULTIPLIER = 0x9E3779B9;

    /**
     * Offset in the bits, in bytes, of the block a {@link Layout#BLOCKED} filter of {@code bitCount} bits
     * gives hash {@code h}: block {@code (h mod 2^32) * blocks div 2^32}, 64 bytes each.
     */
    static long blockByteOffset(long h, long bitCount) {
        long blocks = bitCount / BLOCK_BITS; // at most 2^26: the product stays under 2^58
        return (((h & 0xFFFFFFFFL) * blocks) >>> 32) * (BLOCK_BITS / 8);
    }

    /**
     * The bit, 0 .. 511 within its block, that probe {@code i} of hash {@code h} tests in a
     * {@link Layout#BLOCKED} filter: the format's formula (section 4.10), which {@link #mightContainHash}
     * and {@link Builder} compute incrementally.
     */
    static int blockProbeBit(long h, int i) {
        int g = (int) (h >>> 32);
        for (int j = 0; j < i; j++) {
            g *= BLOCK_PROBE_MULTIPLIER;
        }
        return g >>> 23;
    }

    /**
     * The bit probe {@code i} of hash {@code h} tests in a filter of {@code bitCount} bits: the format's
     * formula (section 4.4), which {@link Builder} sets and {@link #mightContainHash} computes
     * incrementally.
     */
    static long probeBit(long h, int i, long bitCount) {
        return Long.remainderUnsigned(h + i * Long.rotateLeft(h, 32), bitCount);
    }

    /**
     * Number of bits m for {@code expectedEntries} keys: {@link Layout#bitsPerKey} (10 or 11) times
     * {@code n}, rounded up to a multiple of the layout's {@link Layout#bitMultiple} (64 or 512), at least
     * one multiple, at most {@link #MAX_BITS}.
     */
    static long bitCountFor(long expectedEntries, Layout layout) {
        if (expectedEntries < 0) {
            throw new IllegalArgumentException("negative expectedEntries " + expectedEntries);
        }
        long unit = layout.bitMultiple;
        long perKey = layout.bitsPerKey;
        long bits = expectedEntries > MAX_BITS / perKey ? MAX_BITS : expectedEntries * perKey;
        return Math.max(unit, (bits + unit - 1) / unit * unit);
    }

    /** The key hash of every SSTable Bloom filter: {@link XxHash64#hash(byte[])}. */
    static long hash(byte[] key) {
        return XxHash64.hash(key);
    }

    /**
     * Builds a filter section off-heap (in its own shared arena, released by {@link #close()}), sized
     * for an expected number of keys. Not thread-safe.
     */
    static final class Builder implements AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment section;
        private final long bitCount;
        private final Layout layout;

        /** @throws IllegalArgumentException if {@code expectedEntries} is negative */
        Builder(long expectedEntries, Layout layout) {
            this.layout = layout;
            bitCount = bitCountFor(expectedEntries, layout);
            section = arena.allocate(HEADER_SIZE + bitCount / 8); // zeroed
            section.set(I64, 0, bitCount);
            section.set(I32, 8, layout.probes);
        }

        void add(byte[] key) {
            addHash(hash(key));
        }

        /** Adds the key of {@code length} bytes at {@code offset} of {@code segment}. */
        void add(MemorySegment segment, long offset, int length) {
            addHash(XxHash64.hash(segment, offset, length));
        }

        private void addHash(long h) {
            if (layout == Layout.BLOCKED) {
                long block = HEADER_SIZE + blockByteOffset(h, bitCount);
                int g = (int) (h >>> 32);
                for (int i = 0; i < layout.probes; i++) {
                    int bit = g >>> 23;
                    long at = block + (bit >>> 3);
                    section.set(U8, at, (byte) (section.get(U8, at) | (1 << (bit & 7))));
                    g *= BLOCK_PROBE_MULTIPLIER;
                }
                return;
            }
            for (int i = 0; i < layout.probes; i++) {
                long bit = probeBit(h, i, bitCount);
                long at = HEADER_SIZE + (bit >>> 3);
                section.set(U8, at, (byte) (section.get(U8, at) | (1 << (bit & 7))));
            }
        }

        /** The complete section (header and bits) as written to the file; valid until {@link #close()}. */
        MemorySegment section() {
            return section;
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
