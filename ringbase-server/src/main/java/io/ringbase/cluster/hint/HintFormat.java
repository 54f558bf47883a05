package io.ringbase.cluster.hint;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * How a {@link Hint} is stored as an {@link Entry} of the hint store's engine ({@code docs/format.md},
 * "Hints"):
 *
 * <pre>
 * key         := target 0x00 userKey
 * target      the target node's URL in UTF-8 ("http://host:port", never contains 0x00), so keys sort by
 *             target and a hint follows its node whatever its position in --cluster
 * userKey     the hinted entry's key
 * version     the hinted entry's version (the stored entry's version field)
 * value       := formatVersion flags createdAtMs expiresAtMs userValue
 * formatVersion u8  2 (1: the legacy layout below)
 * flags       u8   bit 0 (0x01): the hinted entry is a tombstone; bit 2 (0x04): it is typed (userValue
 *                  starts with a content type prefix, storage.ContentType); other bits 0
 * createdAtMs i64  little-endian, Unix epoch ms when the hint was stored
 * expiresAtMs i64  little-endian, the hinted entry's expiry (0 = none)
 * userValue   the rest: the hinted entry's value (empty for a tombstone)
 * </pre>
 *
 * The stored entry itself never expires and is never a tombstone while the hint is pending; a delivered
 * or dropped hint is removed by a tombstone with the same version.
 *
 * <p>Format version 1, the first, keyed hints by the target's position in {@code --cluster}:
 * {@code key := u16 big-endian index, userKey}, value as above with formatVersion 1. Such hints are read
 * only by {@link #decodeLegacy}, which {@link HintStore#open} uses to migrate them once.
 */
final class HintFormat {

    /** Persisted: do not change the meaning of a value, only add new ones. 2: keyed by target URL. */
    static final int FORMAT_VERSION = 2;
    /** Persisted: hints keyed by the target's list position (u16), migrated at open. */
    static final int LEGACY_FORMAT_VERSION = 1;

    static final int FLAG_TOMBSTONE = 0x01;
    /** The hinted entry is typed: the bit {@code EntryFormat.FLAG_TYPED}. Persisted: do not change. */
    static final int FLAG_TYPED = 0x04;

    static final byte TARGET_END = 0x00; // ends the target URL in a stored key
    static final int LEGACY_KEY_PREFIX_SIZE = 2; // target index, u16 big-endian
    static final int VALUE_HEADER_SIZE = 1 + 1 + 8 + 8; // formatVersion, flags, createdAtMs, expiresAtMs
    /** Largest user value a hint can carry, bytes: the stored value must fit the WAL's 16 MiB value limit. */
    static final int MAX_USER_VALUE_BYTES = (16 << 20) - VALUE_HEADER_SIZE;

    private static final ByteOrder VALUE_ORDER = ByteOrder.LITTLE_ENDIAN; // docs/format.md conventions

    private HintFormat() {}

    /**
     * Whether {@code entry} can be stored as a hint for {@code target} (the stored key, URL and user key,
     * fits {@link Entry#MAX_KEY_BYTES}; the value leaves room for the hint's fields).
     */
    static boolean fits(String target, Entry entry) {
        return targetBytes(target).length + 1 + entry.key().length <= Entry.MAX_KEY_BYTES
                && (entry.value() == null || entry.value().length <= MAX_USER_VALUE_BYTES);
    }

    /** The stored key of {@code userKey}'s hints for {@code target}. */
    static byte[] key(String target, byte[] userKey) {
        byte[] t = targetBytes(target);
        byte[] k = new byte[t.length + 1 + userKey.length];
        System.arraycopy(t, 0, k, 0, t.length);
        k[t.length] = TARGET_END;
        System.arraycopy(userKey, 0, k, t.length + 1, userKey.length);
        return k;
    }

    /** The first stored key of {@code target} (inclusive scan start). */
    static byte[] targetStart(String target) {
        return key(target, new byte[0]);
    }

    /** The first stored key after all of {@code target}'s (exclusive scan end): its URL then 0x01. */
    static byte[] targetEnd(String target) {
        byte[] k = targetStart(target);
        k[k.length - 1] = TARGET_END + 1;
        return k;
    }

    /** The target URL of a stored key of this format, or null if the key has no 0x00 after a URL. */
    static String targetOf(byte[] storedKey) {
        int end = indexOfTargetEnd(storedKey);
        return end < 0 ? null : new String(storedKey, 0, end, StandardCharsets.UTF_8);
    }

    private static int indexOfTargetEnd(byte[] storedKey) {
        for (int i = 0; i < storedKey.length; i++) {
            if (storedKey[i] == TARGET_END) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] targetBytes(String target) {
        if (target.isEmpty() || target.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a hint target must be a non-empty URL without NUL: " + target);
        }
        return target.getBytes(StandardCharsets.UTF_8);
    }

    /** The format version of a stored (non-tombstone) hint's value, or -1 if it has none. */
    static int formatVersionOf(Entry stored) {
        byte[] v = stored.value();
        return v == null || v.length == 0 ? -1 : v[0] & 0xFF;
    }

    /**
     * The stored form of a hint.
     *
     * @throws IllegalArgumentException if the entry does not {@linkplain #fits fit} or the index is out of range
     */
    static Entry encode(Hint hint) {
        Entry e = hint.entry();
        if (!fits(hint.target(), e)) {
            throw new IllegalArgumentException("entry too large for a hint: " + e);
        }
        int valueLen = e.isTombstone() ? 0 : e.value().length;
        ByteBuffer v = ByteBuffer.allocate(VALUE_HEADER_SIZE + valueLen).order(VALUE_ORDER);
        v.put((byte) FORMAT_VERSION);
        v.put((byte) ((e.isTombstone() ? FLAG_TOMBSTONE : 0) | (e.typed() ? FLAG_TYPED : 0)));
        v.putLong(hint.createdAtMs());
        v.putLong(e.expiresAtMs());
        if (valueLen > 0) {
            v.put(e.value());
        }
        return Entry.value(key(hint.target(), e.key()), e.version(), v.array());
    }

    /**
     * The hint a stored (non-tombstone) entry of format version {@value #FORMAT_VERSION} holds.
     *
     * @param dir the hint directory, for the error message
     * @throws CorruptionException if the key has no target URL, or the value is shorter than its
     *                             header, has another format version or unknown flag bits, a negative
     *                             expiry, or a tombstone flag with value bytes
     */
    static Hint decode(Entry stored, Path dir) throws CorruptionException {
        byte[] k = stored.key();
        int end = indexOfTargetEnd(k);
        if (end <= 0) {
            throw corrupt(dir, stored, "no target URL in the key");
        }
        Decoded d = decodeValue(stored, dir, FORMAT_VERSION, Arrays.copyOfRange(k, end + 1, k.length));
        return new Hint(new String(k, 0, end, StandardCharsets.UTF_8), d.entry(), d.createdAtMs());
    }

    /**
     * The target index and hint of a stored entry of the legacy format version
     * {@value #LEGACY_FORMAT_VERSION} (keyed by list position), for migration.
     *
     * @param targets the URL of the node at a list index (the running {@code --cluster} list), or null
     *                if the index is past its end
     * @return the hint, addressed to {@code targets.apply(index)}, or null if that is null
     * @throws CorruptionException as {@link #decode}
     */
    static Hint decodeLegacy(Entry stored, Path dir, IntFunction<String> targets) throws CorruptionException {
        byte[] k = stored.key();
        if (k.length < LEGACY_KEY_PREFIX_SIZE) {
            throw corrupt(dir, stored, "shorter than the legacy hint key");
        }
        int index = ((k[0] & 0xFF) << 8) | (k[1] & 0xFF);
        Decoded d = decodeValue(
                stored, dir, LEGACY_FORMAT_VERSION, Arrays.copyOfRange(k, LEGACY_KEY_PREFIX_SIZE, k.length));
        String target = targets.apply(index);
        return target == null ? null : new Hint(target, d.entry(), d.createdAtMs());
    }

    private record Decoded(Entry entry, long createdAtMs) {}

    private static Decoded decodeValue(Entry stored, Path dir, int expectedVersion, byte[] userKey)
            throws CorruptionException {
        byte[] v = stored.value();
        if (v == null || v.length < VALUE_HEADER_SIZE) {
            throw corrupt(dir, stored, "shorter than the hint header");
        }
        ByteBuffer b = ByteBuffer.wrap(v).order(VALUE_ORDER);
        int version = b.get() & 0xFF;
        if (version != expectedVersion) {
            throw corrupt(dir, stored, "unknown hint format version " + version);
        }
        int flags = b.get() & 0xFF;
        if ((flags & ~(FLAG_TOMBSTONE | FLAG_TYPED)) != 0) {
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
        boolean typed = (flags & FLAG_TYPED) != 0;
        if (tombstone && typed) {
            throw corrupt(dir, stored, "typed tombstone hint");
        }
        byte[] userValue = tombstone ? null : Arrays.copyOfRange(v, VALUE_HEADER_SIZE, v.length);
        try {
            return new Decoded(new Entry(userKey, stored.version(), expiresAtMs, userValue, typed), createdAtMs);
        } catch (IllegalArgumentException e) {
            throw corrupt(dir, stored, e.getMessage());
        }
    }

    private static CorruptionException corrupt(Path dir, Entry stored, String what) {
        return new CorruptionException(
                dir,
                -1,
                "hint " + Keys.toDisplay(stored.key()) + " version " + stored.version() + ": " + what
                        + "; delete the directory to drop all hints (anti-entropy repairs)");
    }
}
