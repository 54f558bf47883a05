package io.ringbase.storage;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;
import static io.ringbase.storage.Layouts.U8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The binary encoding of one {@link Entry}, shared by the WAL record payload and the SSTable data
 * section (documented in {@code docs/format.md}, "Entry encoding"):
 *
 * <pre>
 * flags      u8    bit 0: tombstone, bit 1: has expiry, bit 2: typed (the value starts with a
 *                  {@link ContentType} prefix); other bits must be 0
 * version    i64
 * expiresAt  i64   Unix epoch ms, 0 when bit 1 is clear
 * keyLength  u32   at most 65,536
 * valueLen   u32   0 for a tombstone
 * key        keyLength bytes
 * value      valueLen bytes
 * </pre>
 *
 * Integers are little-endian ({@link Layouts}). The encoding carries no checksum of its own: the
 * enclosing format (WAL record, SSTable entry) covers it.
 */
public final class EntryFormat {

    /** Bytes before the key: flags, version, expiresAt, keyLength, valueLength. */
    public static final int HEADER_SIZE = 1 + 8 + 8 + 4 + 4;

    static final int FLAG_TOMBSTONE = 1;
    static final int FLAG_EXPIRY = 2;
    /** The value starts with a {@link ContentType} prefix; never with bit 0. */
    public static final int FLAG_TYPED = 4;

    private static final int KNOWN_FLAGS = FLAG_TOMBSTONE | FLAG_EXPIRY | FLAG_TYPED;

    private static final int OFF_VERSION = 1;
    private static final int OFF_EXPIRES = 9;
    private static final int OFF_KEY_LEN = 17;
    private static final int OFF_VALUE_LEN = 21;

    private EntryFormat() {}

    /** Encoded size of {@code e} in bytes. */
    public static long encodedSize(Entry e) {
        return (long) HEADER_SIZE + e.key().length + (e.value() == null ? 0 : e.value().length);
    }

    /**
     * Writes {@code e} at {@code offset} of {@code dst}.
     *
     * @return the offset just past the written bytes
     * @throws IndexOutOfBoundsException if it does not fit
     */
    public static long write(Entry e, MemorySegment dst, long offset) {
        int flags = (e.isTombstone() ? FLAG_TOMBSTONE : 0)
                | (e.hasExpiry() ? FLAG_EXPIRY : 0)
                | (e.typed() ? FLAG_TYPED : 0);
        byte[] key = e.key();
        byte[] value = e.value();
        int valueLen = value == null ? 0 : value.length;
        dst.set(U8, offset, (byte) flags);
        dst.set(I64, offset + OFF_VERSION, e.version());
        dst.set(I64, offset + OFF_EXPIRES, e.expiresAtMs());
        dst.set(I32, offset + OFF_KEY_LEN, key.length);
        dst.set(I32, offset + OFF_VALUE_LEN, valueLen);
        long p = offset + HEADER_SIZE;
        MemorySegment.copy(key, 0, dst, ValueLayout.JAVA_BYTE, p, key.length);
        p += key.length;
        if (valueLen > 0) {
            MemorySegment.copy(value, 0, dst, ValueLayout.JAVA_BYTE, p, valueLen);
            p += valueLen;
        }
        return p;
    }

    /** Encoded size, in bytes, of an entry with a key of {@code keyLength} and a value of {@code valueLength} bytes. */
    public static long encodedSize(int keyLength, long valueLength) {
        return HEADER_SIZE + keyLength + valueLength;
    }

    /**
     * Writes an entry given by its parts at {@code offset} of {@code dst}, copying the value straight
     * from {@code value} (a request buffer, say) with no intermediate array.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     * @param typed whether {@code value} is a typed stored value, a {@link ContentType} prefix then the
     *              client's bytes (the caller checked it): flag bit 2 is set (never for a tombstone)
     * @return the offset just past the written bytes
     * @throws IndexOutOfBoundsException if it does not fit
     */
    public static long write(
            MemorySegment dst,
            long offset,
            byte[] key,
            long version,
            long expiresAtMs,
            MemorySegment value,
            boolean typed) {
        long valueLen = value == null ? 0 : value.byteSize();
        long p = writeHead(dst, offset, key, version, expiresAtMs, value == null, typed, valueLen);
        if (valueLen > 0) {
            MemorySegment.copy(value, 0, dst, p, valueLen);
            p += valueLen;
        }
        return p;
    }

    /**
     * Writes the header and key of an entry whose {@code valueLength} value bytes the caller writes
     * (or sends) right after them, so a large value need not be copied into the same buffer.
     *
     * @param typed whether the value is a typed stored value (flag bit 2; ignored for a tombstone)
     * @return the offset just past the key, where the value goes
     */
    public static long writeHead(
            MemorySegment dst,
            long offset,
            byte[] key,
            long version,
            long expiresAtMs,
            boolean tombstone,
            boolean typed,
            long valueLength) {
        int flags = (tombstone ? FLAG_TOMBSTONE : 0)
                | (expiresAtMs != Entry.NO_EXPIRY ? FLAG_EXPIRY : 0)
                | (typed && !tombstone ? FLAG_TYPED : 0);
        dst.set(U8, offset, (byte) flags);
        dst.set(I64, offset + OFF_VERSION, version);
        dst.set(I64, offset + OFF_EXPIRES, expiresAtMs);
        dst.set(I32, offset + OFF_KEY_LEN, key.length);
        dst.set(I32, offset + OFF_VALUE_LEN, (int) valueLength);
        long p = offset + HEADER_SIZE;
        MemorySegment.copy(key, 0, dst, ValueLayout.JAVA_BYTE, p, key.length);
        return p + key.length;
    }

    /** Encodes {@code e} into a new array. */
    public static byte[] toBytes(Entry e) {
        byte[] out = new byte[Math.toIntExact(encodedSize(e))];
        write(e, MemorySegment.ofArray(out), 0);
        return out;
    }

    /**
     * Decodes the entry at {@code offset}, reading no byte at or past {@code limit}.
     *
     * @throws IllegalArgumentException if the bytes are not a valid encoding (unknown flags, lengths
     *                                  that pass {@code limit}, a too long key); callers turn this into
     *                                  a {@link CorruptionException} naming their file
     */
    public static Entry read(MemorySegment src, long offset, long limit) {
        long size = checkedSize(src, offset, limit);
        int flags = src.get(U8, offset) & 0xFF;
        long version = src.get(I64, offset + OFF_VERSION);
        long expiresAt = src.get(I64, offset + OFF_EXPIRES);
        int keyLen = src.get(I32, offset + OFF_KEY_LEN);
        int valueLen = src.get(I32, offset + OFF_VALUE_LEN);
        long p = offset + HEADER_SIZE;
        byte[] key = copyOf(src, p, keyLen);
        p += keyLen;
        byte[] value = (flags & FLAG_TOMBSTONE) == 0 ? copyOf(src, p, valueLen) : null;
        assert p + valueLen == offset + size;
        return new Entry(
                key,
                version,
                (flags & FLAG_EXPIRY) != 0 ? expiresAt : Entry.NO_EXPIRY,
                value,
                (flags & FLAG_TYPED) != 0);
    }

    /**
     * A copy of {@code src[offset, offset + length)}. Not {@code MemorySegment.toArray}, which copies through a
     * heap segment: a second segment class in the engine's code, which made C2 throw compiled code away
     * (docs/design.md, "One segment class for the engine's data").
     */
    public static byte[] copyOf(MemorySegment src, long offset, int length) {
        byte[] out = new byte[length];
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, out, 0, length);
        return out;
    }

    /**
     * Validates the header at {@code offset} and returns the encoded size of the entry there.
     *
     * @throws IllegalArgumentException on an invalid header or if the entry passes {@code limit}
     */
    public static long checkedSize(MemorySegment src, long offset, long limit) {
        if (offset < 0 || limit - offset < HEADER_SIZE) {
            throw new IllegalArgumentException("entry header passes the end at offset " + offset);
        }
        int flags = src.get(U8, offset) & 0xFF;
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown entry flags 0x" + Integer.toHexString(flags));
        }
        long expiresAt = src.get(I64, offset + OFF_EXPIRES);
        if ((flags & FLAG_EXPIRY) != 0 ? expiresAt <= 0 : expiresAt != 0) {
            throw new IllegalArgumentException("expiry " + expiresAt + " does not match flags");
        }
        long keyLen = src.get(I32, offset + OFF_KEY_LEN) & 0xFFFFFFFFL;
        long valueLen = src.get(I32, offset + OFF_VALUE_LEN) & 0xFFFFFFFFL;
        if (keyLen > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key length " + keyLen + " exceeds " + Entry.MAX_KEY_BYTES);
        }
        if ((flags & FLAG_TOMBSTONE) != 0 && valueLen != 0) {
            throw new IllegalArgumentException("tombstone with value length " + valueLen);
        }
        if ((flags & (FLAG_TOMBSTONE | FLAG_TYPED)) == (FLAG_TOMBSTONE | FLAG_TYPED)) {
            throw new IllegalArgumentException("typed tombstone");
        }
        long size = HEADER_SIZE + keyLen + valueLen;
        if (size > limit - offset) {
            throw new IllegalArgumentException("entry of " + size + " bytes passes the end at offset " + offset);
        }
        if ((flags & FLAG_TYPED) != 0) {
            ContentType.prefixLength(src, offset + HEADER_SIZE + keyLen, valueLen);
        }
        return size;
    }

    /** Encoded size of the (already validated) entry at {@code offset}. */
    public static long size(MemorySegment src, long offset) {
        return (long) HEADER_SIZE + keyLength(src, offset) + valueLength(src, offset);
    }

    /** Whether the (already validated) entry at {@code offset} is a tombstone. */
    public static boolean isTombstone(MemorySegment src, long offset) {
        return (src.get(U8, offset) & FLAG_TOMBSTONE) != 0;
    }

    /** Whether the (already validated) entry at {@code offset} is typed: its value starts with a {@link ContentType} prefix. */
    public static boolean isTyped(MemorySegment src, long offset) {
        return (src.get(U8, offset) & FLAG_TYPED) != 0;
    }

    /** Expiry (Unix epoch ms, or {@link Entry#NO_EXPIRY}) of the (already validated) entry at {@code offset}. */
    public static long expiresAtMs(MemorySegment src, long offset) {
        return src.get(I64, offset + OFF_EXPIRES);
    }

    /** Value length of the (already validated) entry at {@code offset}; 0 for a tombstone. */
    public static int valueLength(MemorySegment src, long offset) {
        return src.get(I32, offset + OFF_VALUE_LEN);
    }

    /** Offset of the value bytes of the (already validated) entry at {@code offset}. */
    public static long valueOffset(MemorySegment src, long offset) {
        return offset + HEADER_SIZE + keyLength(src, offset);
    }

    /**
     * Compares the keys of two encoded entries in {@link Keys#ORDER}: negative if {@code a}'s sorts first.
     */
    public static int compareKeys(MemorySegment a, long aOffset, MemorySegment b, long bOffset) {
        long aLen = keyLength(a, aOffset);
        long bLen = keyLength(b, bOffset);
        long aKey = aOffset + HEADER_SIZE;
        long bKey = bOffset + HEADER_SIZE;
        long mismatch = MemorySegment.mismatch(a, aKey, aKey + aLen, b, bKey, bKey + bLen);
        if (mismatch < 0) {
            return 0;
        }
        if (mismatch == aLen) {
            return -1;
        }
        if (mismatch == bLen) {
            return 1;
        }
        return Integer.compare(a.get(U8, aKey + mismatch) & 0xFF, b.get(U8, bKey + mismatch) & 0xFF);
    }

    /**
     * {@link Entry#compareNewness} of two encoded entries of the same key, without decoding them:
     * positive if {@code a} is newer.
     */
    public static int compareNewness(MemorySegment a, long aOffset, MemorySegment b, long bOffset) {
        int c = Long.compare(version(a, aOffset), version(b, bOffset));
        if (c != 0) {
            return c;
        }
        boolean aDead = isTombstone(a, aOffset);
        boolean bDead = isTombstone(b, bOffset);
        if (aDead || bDead) {
            if (aDead && bDead) {
                return Long.compare(expiresAtMs(a, aOffset), expiresAtMs(b, bOffset));
            }
            return aDead ? 1 : -1; // tombstone wins a tie
        }
        long aVal = valueOffset(a, aOffset);
        long bVal = valueOffset(b, bOffset);
        long aLen = valueLength(a, aOffset) & 0xFFFFFFFFL;
        long bLen = valueLength(b, bOffset) & 0xFFFFFFFFL;
        long mismatch = MemorySegment.mismatch(a, aVal, aVal + aLen, b, bVal, bVal + bLen);
        if (mismatch >= 0) {
            if (mismatch == aLen) {
                return -1;
            }
            if (mismatch == bLen) {
                return 1;
            }
            return Integer.compare(a.get(U8, aVal + mismatch) & 0xFF, b.get(U8, bVal + mismatch) & 0xFF);
        }
        boolean aTyped = isTyped(a, aOffset);
        if (aTyped != isTyped(b, bOffset)) {
            return aTyped ? 1 : -1; // as Entry.compareNewness
        }
        return Long.compare(expiresAtMs(a, aOffset), expiresAtMs(b, bOffset));
    }

    /** 8 bytes of a {@code byte[]} as a big-endian long (compared unsigned, they order as the bytes do). */
    private static final java.lang.invoke.VarHandle KEY_BYTES_BE =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private static final ValueLayout.OfLong U64_BE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * A key's first 8 bytes as a big-endian unsigned long, zero-padded: two keys' prefixes compare
     * (unsigned) as the keys do, or tie. Searches compare prefixes first and look at the rest only on a
     * tie, which spares most of the {@code mismatch} calls (and their bounds checks) of a search.
     */
    public static long keyPrefix(byte[] key) {
        return keyPrefix(key, 0);
    }

    /**
     * {@link #keyPrefix(byte[])} of the bytes of {@code key} from {@code from} on: its 8 bytes there as a
     * big-endian unsigned long, zero-padded past its end.
     */
    public static long keyPrefix(byte[] key, int from) {
        long p = 0;
        for (int i = from; i < from + 8; i++) {
            p = (p << 8) | (i < key.length ? key[i] & 0xFF : 0);
        }
        return p;
    }

    /** {@link #keyPrefix(byte[])} of the bytes of {@code key}. */
    public static long keyPrefix(MemorySegment key) {
        long n = key.byteSize();
        if (n >= 8) {
            return key.get(U64_BE, 0);
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = (p << 8) | (i < n ? key.get(U8, i) & 0xFF : 0);
        }
        return p;
    }

    /** {@link #keyPrefix(byte[])} of the key of the (validated) entry at {@code offset}. */
    public static long storedKeyPrefix(MemorySegment src, long offset) {
        return keyPrefix(src, offset + HEADER_SIZE, keyLength(src, offset));
    }

    /** {@link #keyPrefix(byte[])} of the {@code len} key bytes at {@code keyStart} of {@code src}. */
    public static long keyPrefix(MemorySegment src, long keyStart, int len) {
        if (len >= 8) {
            return src.get(U64_BE, keyStart);
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = (p << 8) | (i < len ? src.get(U8, keyStart + i) & 0xFF : 0);
        }
        return p;
    }

    /** Key length of the (already validated) entry at {@code offset}. */
    public static int keyLength(MemorySegment src, long offset) {
        return src.get(I32, offset + OFF_KEY_LEN);
    }

    /** Offset of the key bytes of the entry at {@code offset}. */
    public static long keyOffset(long offset) {
        return offset + HEADER_SIZE;
    }

    /** Version of the (already validated) entry at {@code offset}. */
    public static long version(MemorySegment src, long offset) {
        return src.get(I64, offset + OFF_VERSION);
    }

    /**
     * Compares the key of the entry at {@code offset} with {@code key} in {@link Keys#ORDER} without
     * copying it out: negative if the stored key sorts first.
     */
    public static int compareKey(MemorySegment src, long offset, byte[] key) {
        return compareKey(src, offset, key, keyPrefix(key));
    }

    /**
     * {@link #compareKey(MemorySegment, long, byte[])} given the probe's {@link #keyPrefix}: most
     * comparisons are decided by the prefixes, the rest byte by byte past them. Allocates nothing (a
     * segment wrapping the probe cost a heap segment and its session object per read).
     */
    public static int compareKey(MemorySegment src, long offset, byte[] key, long keyPrefix) {
        return compareKeyBytes(src, offset + HEADER_SIZE, keyLength(src, offset), key, keyPrefix);
    }

    /**
     * Compares the {@code len} key bytes at {@code keyStart} of {@code src} (a key stored outside an
     * entry, e.g. in an SSTable index) with {@code key} in {@link Keys#ORDER}, given the probe's
     * {@link #keyPrefix}: negative if the stored key sorts first. Allocates nothing.
     */
    public static int compareKeyBytes(MemorySegment src, long keyStart, int len, byte[] key, long keyPrefix) {
        long stored = keyPrefix(src, keyStart, len);
        if (stored != keyPrefix) {
            return Long.compareUnsigned(stored, keyPrefix);
        }
        // equal prefixes: the first min(len, key.length, 8) bytes agree, and a shorter key is a prefix
        int n = Math.min(len, key.length);
        int i = 8;
        for (; i + 8 <= n; i += 8) { // 8 bytes at a time, as big-endian longs: one segment access each
            long a = src.get(U64_BE, keyStart + i);
            long b = (long) KEY_BYTES_BE.get(key, i);
            if (a != b) {
                return Long.compareUnsigned(a, b);
            }
        }
        for (; i < n; i++) {
            int a = src.get(U8, keyStart + i) & 0xFF;
            int b = key[i] & 0xFF;
            if (a != b) {
                return Integer.compare(a, b);
            }
        }
        return Integer.compare(len, key.length);
    }

    /**
     * Like {@link #compareKey(MemorySegment, long, byte[])} with the probe key already wrapped, so that
     * a binary search wraps it once and no comparison allocates.
     */
    public static int compareKey(MemorySegment src, long offset, MemorySegment probe) {
        long len = keyLength(src, offset);
        long keyStart = offset + HEADER_SIZE;
        long probeLen = probe.byteSize();
        long mismatch = MemorySegment.mismatch(src, keyStart, keyStart + len, probe, 0, probeLen);
        if (mismatch < 0) {
            return 0;
        }
        if (mismatch == len) {
            return -1;
        }
        if (mismatch == probeLen) {
            return 1;
        }
        return Integer.compare(src.get(U8, keyStart + mismatch) & 0xFF, probe.get(U8, mismatch) & 0xFF);
    }
}
