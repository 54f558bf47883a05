package io.ringbase.cluster.hint;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * How a {@link Hint} is stored as an {@link Entry} of the hint store's engine ({@code docs/format.md},
 * "Hints"):
 *
 * <pre>
 * key         := target userKey
 * target      u16 BIG-endian   the target node's index (big-endian so that keys sort by target)
 * userKey     the hinted entry's key
 * version     the hinted entry's version (the stored entry's version field)
 * value       := formatVersion flags createdAtMs expiresAtMs userValue
 * formatVersion u8  1
 * flags       u8   bit 0 (0x01): the hinted entry is a tombstone; other bits 0
 * createdAtMs i64  little-endian, Unix epoch ms when the hint was stored
 * expiresAtMs i64  little-endian, the hinted entry's expiry (0 = none)
 * userValue   the rest: the hinted entry's value (empty for a tombstone)
 * </pre>
 *
 * The stored entry itself never expires and is never a tombstone while the hint is pending; a delivered
 * or dropped hint is removed by a tombstone with the same version.
 */
final class HintFormat {

    /** Persisted: do not change the meaning of a value, only add new ones. */
    static final int FORMAT_VERSION = 1;
    static final int FLAG_TOMBSTONE = 0x01;

    static final int KEY_PREFIX_SIZE = 2; // target index, u16 big-endian
    static final int VALUE_HEADER_SIZE = 1 + 1 + 8 + 8; // formatVersion, flags, createdAtMs, expiresAtMs
    static final int MAX_TARGET_INDEX = 0xFFFF;

    /** Largest user key a hint can carry: the stored key must fit {@link Entry#MAX_KEY_BYTES}. */
    static final int MAX_USER_KEY_BYTES = Entry.MAX_KEY_BYTES - KEY_PREFIX_SIZE;
    /** Largest user value a hint can carry, bytes: the stored value must fit the WAL's 16 MiB value limit. */
    static final int MAX_USER_VALUE_BYTES = (16 << 20) - VALUE_HEADER_SIZE;

    private static final ByteOrder VALUE_ORDER = ByteOrder.LITTLE_ENDIAN; // docs/format.md conventions

    private HintFormat() {
    }

    /** Whether {@code entry} can be stored as a hint (its key and value leave room for the hint's fields). */
    static boolean fits(Entry entry) {
        return entry.key().length <= MAX_USER_KEY_BYTES
                && (entry.value() == null || entry.value().length <= MAX_USER_VALUE_BYTES);
    }

    /** The stored key of {@code userKey}'s hints for {@code targetIndex}. */
    static byte[] key(int targetIndex, byte[] userKey) {
        checkTarget(targetIndex);
        byte[] k = new byte[KEY_PREFIX_SIZE + userKey.length];
        k[0] = (byte) (targetIndex >>> 8);
        k[1] = (byte) targetIndex;
        System.arraycopy(userKey, 0, k, KEY_PREFIX_SIZE, userKey.length);
        return k;
    }

    /** The first stored key of {@code targetIndex} (inclusive scan start). */
    static byte[] targetStart(int targetIndex) {
        return key(targetIndex, new byte[0]);
    }

    /** The first stored key after all of {@code targetIndex}'s (exclusive scan end), or null for the last target. */
    static byte[] targetEnd(int targetIndex) {
        checkTarget(targetIndex);
        return targetIndex == MAX_TARGET_INDEX ? null : targetStart(targetIndex + 1);
    }

    static int targetOf(byte[] storedKey) {
        return ((storedKey[0] & 0xFF) << 8) | (storedKey[1] & 0xFF);
    }

    static byte[] userKeyOf(byte[] storedKey) {
        return Arrays.copyOfRange(storedKey, KEY_PREFIX_SIZE, storedKey.length);
    }

    /**
     * The stored form of a hint.
     *
     * @throws IllegalArgumentException if the entry does not {@linkplain #fits fit} or the index is out of range
     */
    static Entry encode(Hint hint) {
        Entry e = hint.entry();
        if (!fits(e)) {
            throw new IllegalArgumentException("entry too large for a hint: " + e);
        }
        int valueLen = e.isTombstone() ? 0 : e.value().length;
        ByteBuffer v = ByteBuffer.allocate(VALUE_HEADER_SIZE + valueLen).order(VALUE_ORDER);
        v.put((byte) FORMAT_VERSION);
        v.put((byte) (e.isTombstone() ? FLAG_TOMBSTONE : 0));
        v.putLong(hint.createdAtMs());
        v.putLong(e.expiresAtMs());
        if (valueLen > 0) {
            v.put(e.value());
        }
        return Entry.value(key(hint.targetIndex(), e.key()), e.version(), v.array());
    }

    /**
     * The hint a stored (non-tombstone) entry holds.
     *
     * @param dir the hint directory, for the error message
     * @throws CorruptionException if the key is shorter than the target prefix, or the value is shorter
     *                             than its header, has an unknown format version or flag bits, a negative
     *                             expiry, or a tombstone flag with value bytes
     */
    static Hint decode(Entry stored, Path dir) throws CorruptionException {
        byte[] k = stored.key();
        byte[] v = stored.value();
        if (k.length < KEY_PREFIX_SIZE || v == null || v.length < VALUE_HEADER_SIZE) {
            throw corrupt(dir, stored, "shorter than the hint header");
        }
        ByteBuffer b = ByteBuffer.wrap(v).order(VALUE_ORDER);
        int version = b.get() & 0xFF;
        if (version != FORMAT_VERSION) {
            throw corrupt(dir, stored, "unknown hint format version " + version);
        }
        int flags = b.get() & 0xFF;
        if ((flags & ~FLAG_TOMBSTONE) != 0) {
            throw corrupt(dir, stored, "unknown hint flags 0x" + Integer.toHexString(flags));
        }
        long createdAtMs = b.getLong();
        long expiresAtMs = b.getLong();
        if (expiresAtMs < 0) {
            throw corrupt(dir, stored, "negative expiresAtMs " + expiresAtMs);
        }
        boolean tombstone = (flags & FLAG_TOMBSTONE) != 0;
        if (tombstone && b.hasRemaining()) {
            throw corrupt(dir, stored, "tombstone hint with " + b.remaining() + " value bytes");
        }
        byte[] userValue = tombstone ? null : Arrays.copyOfRange(v, VALUE_HEADER_SIZE, v.length);
        Entry entry = new Entry(userKeyOf(k), stored.version(), expiresAtMs, userValue);
        return new Hint(targetOf(k), entry, createdAtMs);
    }

    private static CorruptionException corrupt(Path dir, Entry stored, String what) {
        return new CorruptionException(dir, -1, "hint " + Keys.toDisplay(stored.key()) + " version "
                + stored.version() + ": " + what + "; delete the directory to drop all hints (anti-entropy repairs)");
    }

    private static void checkTarget(int targetIndex) {
        if (targetIndex < 0 || targetIndex > MAX_TARGET_INDEX) {
            throw new IllegalArgumentException("target index must be 0.." + MAX_TARGET_INDEX + ", got " + targetIndex);
        }
    }
}
