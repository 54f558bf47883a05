package io.ringbase.storage.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The entry encoding inside the blocks of SSTable format version 3 ({@code docs/format.md}, section
 * 4.9): the key shares its first bytes with the previous entry's key (none at a restart point), lengths
 * are varints, and the expiry is stored only when there is one (LevelDB's and RocksDB's block entries,
 * with our header fields):
 *
 * <pre>
 * shared      varint32  key bytes equal to the previous entry's key; 0 at a restart point
 * unshared    varint32  key bytes that follow (shared + unshared = key length, at most 65,536)
 * valueLength varint32  0 for a tombstone
 * flags       u8        as in section 2.1
 * version     i64
 * expiresAt   i64       only if flags bit 1 (has expiry) is set
 * keySuffix   unshared bytes
 * value       valueLength bytes
 * </pre>
 *
 * <p>An instance is a reusable decoder for one reader (a lookup's {@link EntryLocation}, an iterator):
 * {@link #decode} parses the entry at a position and rebuilds its whole key in {@link #key()} from the
 * previous one; {@link #expand} writes it out in the section 2.1 encoding that the rest of the engine
 * reads. Static methods encode. Not thread-safe.
 */
final class CompactEntry {

    /** The fewest bytes an entry takes: three one-byte varints, flags, version. */
    static final int MIN_SIZE = 3 + 1 + 8;

    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_EXPIRY = 2;

    /** The decoded entry's key: its first {@link #keyLength} bytes. */
    private byte[] key = new byte[64];
    private MemorySegment keySegment = MemorySegment.ofArray(key);
    private int keyLength;
    private int flags;
    private long version;
    private long expiresAt;
    private MemorySegment valueSegment;
    private long valueOffset;
    private int valueLength;
    /** Where the decoded entry's encoding ends, and the next one begins. */
    private long end;

    private byte[] expanded = new byte[0];
    private MemorySegment expandedSegment = MemorySegment.ofArray(expanded);

    /**
     * The compact encoding's size, in bytes, of the section 2.1 entry at {@code offset} of {@code src}
     * whose key shares {@code shared} bytes with the previous key.
     */
    static long encodedSize(MemorySegment src, long offset, int shared) {
        int keyLength = EntryFormat.keyLength(src, offset);
        int valueLength = EntryFormat.valueLength(src, offset);
        int unshared = keyLength - shared;
        boolean expiry = (src.get(U8, offset) & FLAG_EXPIRY) != 0;
        return varintSize(shared) + varintSize(unshared) + varintSize(valueLength) + 1 + 8 + (expiry ? 8 : 0)
                + unshared + (long) valueLength;
    }

    /**
     * Writes the section 2.1 entry at {@code offset} of {@code src} in the compact encoding at {@code at} of
     * {@code dst}, its key's first {@code shared} bytes left out.
     *
     * @return the offset just past what was written
     */
    static long write(MemorySegment src, long offset, int shared, MemorySegment dst, long at) {
        int keyLength = EntryFormat.keyLength(src, offset);
        int valueLength = EntryFormat.valueLength(src, offset);
        int flags = src.get(U8, offset) & 0xFF;
        long p = writeVarint(dst, at, shared);
        p = writeVarint(dst, p, keyLength - shared);
        p = writeVarint(dst, p, valueLength);
        dst.set(U8, p, (byte) flags);
        dst.set(I64, p + 1, EntryFormat.version(src, offset));
        p += 9;
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

    static int varintSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static long writeVarint(MemorySegment dst, long at, int v) {
        while ((v & ~0x7F) != 0) {
            dst.set(U8, at++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        dst.set(U8, at++, (byte) v);
        return at;
    }

    /**
     * Decodes the entry at {@code pos} of {@code block}, reading nothing at or past {@code limit}, and
     * rebuilds its key on the previously decoded one (whose first {@code shared} bytes it takes).
     *
     * @param restart whether {@code pos} is a restart point or the block's first entry, where {@code shared} must be 0
     * @return the offset just past the entry
     * @throws IllegalArgumentException if the bytes are not a valid entry (a varint or length that passes
     *                                  {@code limit}, unknown flags, a {@code shared} longer than the
     *                                  previous key, a tombstone with a value, a key too long); callers
     *                                  turn it into a {@link io.ringbase.storage.CorruptionException}
     */
    long decode(MemorySegment block, long pos, long limit, boolean restart) {
        long p = pos;
        long shared = 0;
        long unshared = 0;
        long values = 0;
        for (int field = 0; field < 3; field++) {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                if (p >= limit || shift > 28) {
                    throw new IllegalArgumentException("entry header passes the end at offset " + pos);
                }
                int b = block.get(U8, p++) & 0xFF;
                v |= (long) (b & 0x7F) << shift;
                if (b < 0x80) {
                    break;
                }
            }
            if (field == 0) {
                shared = v;
            } else if (field == 1) {
                unshared = v;
            } else {
                values = v;
            }
        }
        if (limit - p < 9) {
            throw new IllegalArgumentException("entry header passes the end at offset " + pos);
        }
        int f = block.get(U8, p) & 0xFF;
        if ((f & ~(FLAG_TOMBSTONE | FLAG_EXPIRY)) != 0) {
            throw new IllegalArgumentException("unknown entry flags 0x" + Integer.toHexString(f));
        }
        long v = block.get(I64, p + 1);
        p += 9;
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
        int length = (int) (shared + unshared);
        if (key.length < length) {
            key = java.util.Arrays.copyOf(key, Math.max(length, 2 * key.length));
            keySegment = MemorySegment.ofArray(key);
        }
        MemorySegment.copy(block, U8, p, key, (int) shared, (int) unshared);
        keyLength = length;
        flags = f;
        version = v;
        expiresAt = expires;
        valueSegment = block;
        valueOffset = p + unshared;
        valueLength = (int) values;
        end = valueOffset + values;
        return end;
    }

    /** Compares the decoded entry's key with {@code key} in {@link io.ringbase.storage.Keys#ORDER}. */
    int compareKey(byte[] key, long keyPrefix) {
        return EntryFormat.compareKeyBytes(keySegment, 0, keyLength, key, keyPrefix);
    }

    /** Where the decoded entry ends. */
    long end() {
        return end;
    }

    /**
     * Writes the decoded entry in the section 2.1 encoding into this decoder's own buffer (grown as
     * needed, then reused) and returns that buffer; the entry starts at offset 0 and is
     * {@link #expandedSize()} bytes long. Valid until the next {@code expand}.
     */
    MemorySegment expand() {
        long size = expandedSize();
        if (expanded.length < size) {
            expanded = new byte[(int) Math.max(size, Math.min(Integer.MAX_VALUE - 8, 2L * expanded.length))];
            expandedSegment = MemorySegment.ofArray(expanded);
        }
        MemorySegment dst = expandedSegment;
        dst.set(U8, 0, (byte) flags);
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

    /** The buffer {@link #expand} writes into, as last grown. */
    MemorySegment expandedBuffer() {
        return expandedSegment;
    }
}
