package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.storage.ContentType;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The entry encoding inside the blocks of SSTable format versions 3 and 4 ({@code docs/format.md}, section
 * 4.9): the key shares its first bytes with the previous entry's key (none at a restart point), lengths
 * are varints, the version is stored whole only at a restart point and elsewhere as its difference
 * from that one's, and the expiry is stored only when there is one (LevelDB's and RocksDB's block
 * entries, with our header fields):
 *
 * <pre>
 * shared      varint32  key bytes equal to the previous entry's key; 0 at a restart point
 * unshared    varint32  key bytes that follow (shared + unshared = key length, at most 65,536)
 * valueLength varint32  0 for a tombstone
 * flags       u8        bit 0 tombstone, bit 1 has expiry (as in section 2.1), bit 2 whole version,
 *                       bit 3 typed (section 2.1's bit 2: the value starts with a content type prefix)
 * version     i64 if flags bit 2 is set (always at a restart point), else the zigzag varint64 of
 *             version - the version of the last entry before it with bit 2 set
 * expiresAt   i64       only if flags bit 1 (has expiry) is set
 * keySuffix   unshared bytes
 * value       valueLength bytes
 * </pre>
 *
 * <p>An instance is a reusable decoder for one reader (a lookup's {@link EntryLocation}, an iterator):
 * {@link #decode} parses the entry at a position and rebuilds its whole key from the previous one;
 * {@link #expand} writes it out in the section 2.1 encoding that the rest of the engine reads. Static
 * methods encode. Not thread-safe.
 */
final class CompactEntry {

    /** The fewest bytes an entry takes: three one-byte varints, flags, a one-byte version difference. */
    static final int MIN_SIZE = 3 + 1 + 1;

    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_EXPIRY = 2;
    /** The version is stored whole (an i64), not as a difference: at every restart point. */
    private static final int FLAG_WHOLE_VERSION = 4;
    /**
     * The value starts with a content type prefix: {@link EntryFormat#FLAG_TYPED}, moved to bit 3 because bit
     * 2 here is {@link #FLAG_WHOLE_VERSION}.
     */
    private static final int FLAG_TYPED = 8;

    private static final int KNOWN_FLAGS = FLAG_TOMBSTONE | FLAG_EXPIRY | FLAG_WHOLE_VERSION | FLAG_TYPED;

    /** The decoded entry's key: its first {@link #keyLength} bytes. */
    private byte[] key = new byte[64];

    private int keyLength;
    private int flags;
    private long version;
    /** The version of the last entry decoded with a whole version, the base of the differences after it. */
    private long baseVersion;

    private boolean hasBase;
    private long expiresAt;
    private MemorySegment valueSegment;
    private long valueOffset;
    private int valueLength;

    /**
     * Where {@link #expand} writes: native, like the memtables and tables the same engine code reads (heap
     * segments there made C2 recompile it; {@link SstableWriter}'s buffers say more). Freed by the
     * collector with this decoder, or when it grows.
     */
    private MemorySegment expanded = MemorySegment.NULL;

    /**
     * The compact encoding's size, in bytes, of the section 2.1 entry at {@code offset} of {@code src}
     * whose key shares {@code shared} bytes with the previous key, written as {@link #write} does.
     */
    static long encodedSize(MemorySegment src, long offset, int shared, boolean restart, long baseVersion) {
        int keyLength = EntryFormat.keyLength(src, offset);
        int valueLength = EntryFormat.valueLength(src, offset);
        int unshared = keyLength - shared;
        boolean expiry = (src.get(U8, offset) & FLAG_EXPIRY) != 0;
        int version = restart ? 8 : varintSize(zigzag(EntryFormat.version(src, offset) - baseVersion));
        return varintSize(shared)
                + varintSize(unshared)
                + varintSize(valueLength)
                + 1
                + version
                + (expiry ? 8 : 0)
                + unshared
                + (long) valueLength;
    }

    /**
     * Writes the section 2.1 entry at {@code offset} of {@code src} in the compact encoding at {@code at} of
     * {@code dst}, its key's first {@code shared} bytes left out.
     *
     * @param restart     whether the entry is a restart point: its version is then written whole
     * @param baseVersion otherwise, the version of the block's last restart point, which the entry's
     *                    version is written as a difference from
     * @return the offset just past what was written
     */
    static long write(
            MemorySegment src, long offset, int shared, boolean restart, long baseVersion, MemorySegment dst, long at) {
        int keyLength = EntryFormat.keyLength(src, offset);
        int valueLength = EntryFormat.valueLength(src, offset);
        int stored = src.get(U8, offset) & 0xFF;
        int flags =
                (stored & (FLAG_TOMBSTONE | FLAG_EXPIRY)) | ((stored & EntryFormat.FLAG_TYPED) != 0 ? FLAG_TYPED : 0);
        long version = EntryFormat.version(src, offset);
        long p = writeVarint(dst, at, shared);
        p = writeVarint(dst, p, keyLength - shared);
        p = writeVarint(dst, p, valueLength);
        if (restart) {
            dst.set(U8, p, (byte) (flags | FLAG_WHOLE_VERSION));
            dst.set(I64, p + 1, version);
            p += 9;
        } else {
            dst.set(U8, p, (byte) flags);
            p = writeVarint(dst, p + 1, zigzag(version - baseVersion));
        }
        if ((flags & FLAG_EXPIRY) != 0) {
            dst.set(I64, p, EntryFormat.expiresAtMs(src, offset));
            p += 8;
        }
        long keyStart = EntryFormat.keyOffset(offset);
        MemorySegment.copy(src, keyStart + shared, dst, p, keyLength - shared);
        p += keyLength - shared;
        MemorySegment.copy(src, keyStart + keyLength, dst, p, valueLength);
        return p + valueLength;
    }

    /** Bytes of {@code v}, taken as unsigned, as a varint: 1 to 10. */
    static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static long writeVarint(MemorySegment dst, long at, long v) {
        while ((v & ~0x7FL) != 0) {
            dst.set(U8, at++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        dst.set(U8, at++, (byte) v);
        return at;
    }

    /** Protocol Buffers' zigzag mapping: small differences of either sign to small unsigned numbers. */
    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /**
     * Reads the varint at {@code p} of {@code block}, of at most {@code maxBytes} bytes, before {@code limit}.
     * Its value goes to {@link #varint}; returns the offset past it.
     */
    private long readVarint(MemorySegment block, long p, long limit, int maxBytes, long entryAt) {
        long v = 0;
        for (int i = 0; ; i++) {
            if (p >= limit || i == maxBytes) {
                throw new IllegalArgumentException("entry header passes the end at offset " + entryAt);
            }
            int b = block.get(U8, p++) & 0xFF;
            v |= (long) (b & 0x7F) << (7 * i);
            if (b < 0x80) {
                varint = v;
                return p;
            }
        }
    }

    /** The value of the last {@link #readVarint}. */
    private long varint;

    /**
     * Decodes the entry at {@code pos} of {@code block}, reading nothing at or past {@code limit}, and
     * rebuilds its key on the previously decoded one (whose first {@code shared} bytes it takes).
     *
     * Takes a version stored as a difference from the last entry this decoder read with a whole version:
     * the restart point a walk starts from.
     *
     * @param restart whether {@code pos} is a restart point (the block's first entry is one), where
     *                {@code shared} must be 0 and the version whole
     * @return the offset just past the entry
     * @throws IllegalArgumentException if the bytes are not a valid entry (a varint too long or passing
     *                                  {@code limit}, a length that passes it, unknown flags, a {@code shared}
     *                                  longer than the previous key, a version difference at a restart
     *                                  point, a tombstone with a value, a key too long); callers turn it
     *                                  into a {@link io.ringbase.storage.CorruptionException}
     */
    long decode(MemorySegment block, long pos, long limit, boolean restart) {
        long p = readVarint(block, pos, limit, 5, pos);
        long shared = varint;
        p = readVarint(block, p, limit, 5, pos);
        long unshared = varint;
        p = readVarint(block, p, limit, 5, pos);
        long values = varint;
        if (p >= limit) {
            throw new IllegalArgumentException("entry header passes the end at offset " + pos);
        }
        int f = block.get(U8, p++) & 0xFF;
        if ((f & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown entry flags 0x" + Integer.toHexString(f));
        }
        long v;
        if ((f & FLAG_WHOLE_VERSION) != 0) {
            if (limit - p < 8) {
                throw new IllegalArgumentException("entry header passes the end at offset " + pos);
            }
            v = block.get(I64, p);
            p += 8;
            baseVersion = v;
            hasBase = true;
        } else if (restart || !hasBase) {
            throw new IllegalArgumentException("entry at offset " + pos + " stores its version as a difference from "
                    + (restart ? "none (a restart point)" : "no entry before it"));
        } else {
            p = readVarint(block, p, limit, 10, pos);
            v = baseVersion + unzigzag(varint);
        }
        f &= ~FLAG_WHOLE_VERSION;
        long expires = Entry.NO_EXPIRY;
        if ((f & FLAG_EXPIRY) != 0) {
            if (limit - p < 8) {
                throw new IllegalArgumentException("entry header passes the end at offset " + pos);
            }
            expires = block.get(I64, p);
            p += 8;
            if (expires <= 0) {
                throw new IllegalArgumentException("expiry " + expires + " with the expiry flag set");
            }
        }
        if (restart ? shared != 0 : shared > keyLength) {
            throw new IllegalArgumentException("entry shares " + shared + " key bytes with a previous key of "
                    + (restart ? "none (a restart point)" : keyLength + " bytes"));
        }
        if (shared + unshared > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key length " + (shared + unshared) + " exceeds " + Entry.MAX_KEY_BYTES);
        }
        if ((f & FLAG_TOMBSTONE) != 0 && values != 0) {
            throw new IllegalArgumentException("tombstone with value length " + values);
        }
        if (unshared + values > limit - p) {
            throw new IllegalArgumentException("entry passes the end at offset " + pos);
        }
        if ((f & FLAG_TYPED) != 0) {
            if ((f & FLAG_TOMBSTONE) != 0) {
                throw new IllegalArgumentException("typed tombstone at offset " + pos);
            }
            ContentType.prefixLength(block, p + unshared, values);
        }
        int length = (int) (shared + unshared);
        if (key.length < length) {
            key = Arrays.copyOf(key, Math.max(length, 2 * key.length));
        }
        MemorySegment.copy(block, U8, p, key, (int) shared, (int) unshared);
        keyLength = length;
        flags = f;
        version = v;
        expiresAt = expires;
        valueSegment = block;
        valueOffset = p + unshared;
        valueLength = (int) values;
        return valueOffset + values;
    }

    /**
     * Compares the decoded entry's key with {@code key} in {@link io.ringbase.storage.Keys#ORDER}: negative
     * if the decoded key sorts first. Compares the two arrays ({@link Arrays#compareUnsigned}), not
     * through a heap {@code MemorySegment}: segment reads of a heap array where the same code also reads
     * native segments were not inlined by C2 (a GET profile had 5% of the node's CPU in the
     * {@code MemorySegment} frames of this comparison).
     */
    int compareKey(byte[] key) {
        return Arrays.compareUnsigned(this.key, 0, keyLength, key, 0, key.length);
    }

    /**
     * Writes the decoded entry in the section 2.1 encoding into this decoder's own buffer (grown as
     * needed, then reused) and returns that buffer; the entry starts at offset 0 and is
     * {@link #expandedSize()} bytes long. Valid until the next {@code expand}.
     */
    MemorySegment expand() {
        long size = expandedSize();
        if (expanded.byteSize() < size) {
            expanded = Arena.ofAuto()
                    .allocate(Math.max(size, Math.min(Integer.MAX_VALUE - 8, 2 * expanded.byteSize())), 8);
        }
        MemorySegment dst = expanded;
        dst.set(U8, 0, (byte)
                ((flags & (FLAG_TOMBSTONE | FLAG_EXPIRY)) | ((flags & FLAG_TYPED) != 0 ? EntryFormat.FLAG_TYPED : 0)));
        dst.set(I64, 1, version);
        dst.set(I64, 9, expiresAt);
        dst.set(I32, 17, keyLength);
        dst.set(I32, 21, valueLength);
        MemorySegment.copy(key, 0, dst, ValueLayout.JAVA_BYTE, EntryFormat.HEADER_SIZE, keyLength);
        MemorySegment.copy(valueSegment, valueOffset, dst, EntryFormat.HEADER_SIZE + keyLength, valueLength);
        return dst;
    }

    /** Size of the decoded entry in the section 2.1 encoding. */
    long expandedSize() {
        return EntryFormat.encodedSize(keyLength, valueLength);
    }
}
