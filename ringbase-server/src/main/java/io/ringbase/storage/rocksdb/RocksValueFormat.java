package io.ringbase.storage.rocksdb;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Layouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The RocksDB value of one key: the newest {@link Entry} without its key (the RocksDB key is the entry's
 * key bytes). Little-endian like every Ringbase format, as in docs/format.md (section 8, "RocksDB engine"):
 *
 * <pre>
 * value := flags:u8 version:u64 expiresAtMs:u64 bytes:u8*   ; bytes run to the end (none for a tombstone)
 * flags := bit 0 set for a tombstone; bit 2 set for a typed value (it starts with a ContentType prefix,
 *          as EntryFormat's bit 2); other bits 0
 * </pre>
 */
final class RocksValueFormat {

    /** Bytes before the value bytes. */
    static final int HEADER_SIZE = 1 + 8 + 8; // flags, version, expiresAtMs
    /** Flag bit of a tombstone. Persisted: do not change. */
    static final byte TOMBSTONE = 0x01;
    /** Flag bit of a typed value, the bit {@link io.ringbase.storage.EntryFormat#FLAG_TYPED}. Persisted: do not change. */
    static final byte TYPED = 0x04;

    private static final ValueLayout.OfLong LONG = Layouts.I64;

    private RocksValueFormat() {}

    /** Encodes a value (or a tombstone when {@code value} is null). */
    static byte[] encode(long version, long expiresAtMs, MemorySegment value) {
        return encode(version, expiresAtMs, value, false);
    }

    /** Encodes a value, typed or not (or a tombstone when {@code value} is null, never typed). */
    static byte[] encode(long version, long expiresAtMs, MemorySegment value, boolean typed) {
        int n = value == null ? 0 : Math.toIntExact(value.byteSize());
        byte[] out = new byte[HEADER_SIZE + n];
        MemorySegment s = MemorySegment.ofArray(out);
        s.set(ValueLayout.JAVA_BYTE, 0, value == null ? TOMBSTONE : typed ? TYPED : 0);
        s.set(LONG, 1, version);
        s.set(LONG, 9, expiresAtMs);
        if (n > 0) {
            MemorySegment.copy(value, 0, s, HEADER_SIZE, n);
        }
        return out;
    }

    /**
     * Decodes {@code bytes} stored under {@code key}.
     *
     * @throws IllegalArgumentException if shorter than the header or with unknown flags
     */
    static Entry decode(byte[] key, byte[] bytes) {
        checkHeader(bytes);
        byte[] value = null;
        if ((bytes[0] & TOMBSTONE) == 0) {
            value = java.util.Arrays.copyOfRange(bytes, HEADER_SIZE, bytes.length);
        }
        return new Entry(key, version(bytes), expiresAtMs(bytes), value, (bytes[0] & TYPED) != 0);
    }

    static boolean isTombstone(byte[] bytes) {
        return (bytes[0] & TOMBSTONE) != 0;
    }

    static long version(byte[] bytes) {
        return MemorySegment.ofArray(bytes).get(LONG, 1);
    }

    static long expiresAtMs(byte[] bytes) {
        return MemorySegment.ofArray(bytes).get(LONG, 9);
    }

    private static void checkHeader(byte[] bytes) {
        if (bytes.length < HEADER_SIZE
                || (bytes[0] & ~(TOMBSTONE | TYPED)) != 0
                || (bytes[0] & (TOMBSTONE | TYPED)) == (TOMBSTONE | TYPED)
                || ((bytes[0] & TOMBSTONE) != 0 && bytes.length != HEADER_SIZE)) {
            throw new IllegalArgumentException("not a Ringbase RocksDB value (" + bytes.length + " bytes, flags 0x"
                    + Integer.toHexString(bytes.length == 0 ? 0 : bytes[0] & 0xff) + ")");
        }
    }

    /**
     * Whether a stored value may be dropped by the purge: a tombstone whose version's physical time, or
     * an expired entry whose expiry, is at or before {@code horizon} (Unix ms; now minus the grace).
     */
    static boolean droppable(byte[] value, long now, long horizon) {
        long deadAt;
        if (isTombstone(value)) {
            deadAt = HybridLogicalClock.physicalMs(version(value));
        } else {
            long expires = expiresAtMs(value);
            if (expires == Entry.NO_EXPIRY || expires > now) {
                return false;
            }
            deadAt = expires;
        }
        return deadAt <= horizon;
    }
}
