package io.ringbase.cluster.rpc;

import io.ringbase.storage.ContentType;
import io.ringbase.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * How the node-to-node protocol encodes one {@link Entry} (documented in {@code docs/http-api.md},
 * "Entry encoding of the internal API"). It is the protocol's own, so that a change of the engines' record
 * encoding ({@code storage.EntryFormat}) never changes the wire; today both lay out the same bytes:
 *
 * <pre>
 * flags      u8    bit 0: tombstone, bit 1: has expiry, bit 2: typed (the value starts with a content
 *                  type prefix, storage.ContentType; never with bit 0); other bits must be 0
 * version    i64
 * expiresAt  i64   Unix epoch ms, 0 when bit 1 is clear
 * keyLength  u32   at most Entry.MAX_KEY_BYTES
 * valueLen   u32   0 for a tombstone
 * key        keyLength bytes
 * value      valueLen bytes
 * </pre>
 *
 * Integers are little-endian. An entry carries no checksum of its own: TCP's checksum and, with a cluster
 * secret, the request's HMAC cover it.
 */
public final class EntryCodec {

    /** Bytes before the key: flags, version, expiresAt, keyLength, valueLength. */
    public static final int HEADER_SIZE = 1 + 8 + 8 + 4 + 4;

    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_EXPIRY = 2;
    private static final int FLAG_TYPED = 4;
    private static final int KNOWN_FLAGS = FLAG_TOMBSTONE | FLAG_EXPIRY | FLAG_TYPED;
    private static final int OFF_VERSION = 1;
    private static final int OFF_EXPIRES = 9;
    private static final int OFF_KEY_LEN = 17;
    private static final int OFF_VALUE_LEN = 21;

    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private EntryCodec() {}

    /** Encoded size of {@code e}, bytes. */
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
        byte[] key = e.key();
        byte[] value = e.value();
        int valueLength = value == null ? 0 : value.length;
        dst.set(ValueLayout.JAVA_BYTE, offset, (byte) ((e.isTombstone() ? FLAG_TOMBSTONE : 0)
                | (e.hasExpiry() ? FLAG_EXPIRY : 0)
                | (e.typed() ? FLAG_TYPED : 0)));
        dst.set(I64, offset + OFF_VERSION, e.version());
        dst.set(I64, offset + OFF_EXPIRES, e.hasExpiry() ? e.expiresAtMs() : 0);
        dst.set(I32, offset + OFF_KEY_LEN, key.length);
        dst.set(I32, offset + OFF_VALUE_LEN, valueLength);
        long p = offset + HEADER_SIZE;
        MemorySegment.copy(key, 0, dst, ValueLayout.JAVA_BYTE, p, key.length);
        p += key.length;
        if (valueLength > 0) {
            MemorySegment.copy(value, 0, dst, ValueLayout.JAVA_BYTE, p, valueLength);
            p += valueLength;
        }
        return p;
    }

    /**
     * Checks the entry header at {@code offset} and returns the entry's encoded size.
     *
     * @throws IllegalArgumentException on unknown flags, an expiry that does not match them, a key over
     *                                  {@link Entry#MAX_KEY_BYTES}, a tombstone with a value, or an entry
     *                                  that passes {@code limit}
     */
    public static long checkedSize(MemorySegment src, long offset, long limit) {
        if (offset < 0 || limit - offset < HEADER_SIZE) {
            throw new IllegalArgumentException("entry header passes the end at offset " + offset);
        }
        int flags = src.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown entry flags 0x" + Integer.toHexString(flags));
        }
        long expiresAt = src.get(I64, offset + OFF_EXPIRES);
        if ((flags & FLAG_EXPIRY) != 0 ? expiresAt <= 0 : expiresAt != 0) {
            throw new IllegalArgumentException("expiry " + expiresAt + " does not match flags");
        }
        long keyLength = src.get(I32, offset + OFF_KEY_LEN) & 0xFFFFFFFFL;
        long valueLength = src.get(I32, offset + OFF_VALUE_LEN) & 0xFFFFFFFFL;
        if (keyLength > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key length " + keyLength + " exceeds " + Entry.MAX_KEY_BYTES);
        }
        if ((flags & FLAG_TOMBSTONE) != 0 && valueLength != 0) {
            throw new IllegalArgumentException("tombstone with value length " + valueLength);
        }
        long size = HEADER_SIZE + keyLength + valueLength;
        if (size > limit - offset) {
            throw new IllegalArgumentException("entry of " + size + " bytes passes the end at offset " + offset);
        }
        if ((flags & FLAG_TYPED) != 0) {
            if ((flags & FLAG_TOMBSTONE) != 0) {
                throw new IllegalArgumentException("typed tombstone");
            }
            ContentType.prefixLength(src, offset + HEADER_SIZE + keyLength, valueLength);
        }
        return size;
    }

    /**
     * Decodes the entry at {@code offset}, reading no byte at or past {@code limit}.
     *
     * @throws IllegalArgumentException as {@link #checkedSize}
     */
    public static Entry read(MemorySegment src, long offset, long limit) {
        checkedSize(src, offset, limit);
        int flags = src.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        long version = src.get(I64, offset + OFF_VERSION);
        long expiresAt = src.get(I64, offset + OFF_EXPIRES);
        int keyLength = src.get(I32, offset + OFF_KEY_LEN);
        int valueLength = src.get(I32, offset + OFF_VALUE_LEN);
        long p = offset + HEADER_SIZE;
        byte[] key = new byte[keyLength];
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, p, key, 0, keyLength);
        byte[] value = null;
        if ((flags & FLAG_TOMBSTONE) == 0) {
            value = new byte[valueLength];
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, p + keyLength, value, 0, valueLength);
        }
        return new Entry(
                key,
                version,
                (flags & FLAG_EXPIRY) != 0 ? expiresAt : Entry.NO_EXPIRY,
                value,
                (flags & FLAG_TYPED) != 0);
    }
}
