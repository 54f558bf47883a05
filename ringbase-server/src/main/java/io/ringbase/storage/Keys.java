package io.ringbase.storage;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The order of keys in the whole store: unsigned lexicographic order of the key bytes. For UTF-8 keys
 * this is the order of their Unicode code points.
 */
public final class Keys {

    /** Unsigned lexicographic byte order; used by memtables, SSTables and merges alike. */
    public static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;

    private Keys() {}

    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    public static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** A short printable form of a key for logs and error messages (at most 64 characters). */
    public static String toDisplay(byte[] key) {
        String s = new String(key, 0, Math.min(key.length, 64), StandardCharsets.UTF_8);
        return key.length > 64 ? s + "...(" + key.length + " bytes)" : s;
    }
}
