package io.ringbase.storage;

import static io.ringbase.storage.Layouts.U8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The content type a typed entry stores in front of its value ({@code docs/format.md}, "Entry encoding",
 * flag bit 2): the value bytes of a typed entry are
 *
 * <pre>
 * typeLength u8     1 to 127
 * type       typeLength bytes of printable US-ASCII, as the client sent it (parameters included)
 * value      the rest: the value the client stored
 * </pre>
 *
 * An untyped entry (no {@code Content-Type}, or {@code application/octet-stream}) has no prefix and no flag,
 * so entries written before content types existed read unchanged. Every layer that carries value bytes
 * carries the prefix with them opaquely and only the typed flag beside the tombstone and expiry flags; the
 * API strips it on the way out ({@link #bareOffset}, {@link #typeOf}). Riak and S3 keep a content type
 * per object the same way. Stateless.
 */
public final class ContentType {

    /** Longest type kept, bytes: what the one length byte of the prefix holds with its top bit clear. */
    public static final int MAX_BYTES = 127;

    /** Most bytes the prefix adds to a value: the length byte and {@link #MAX_BYTES}. */
    public static final int MAX_PREFIX_BYTES = 1 + MAX_BYTES;

    /** The type an untyped value is served with. */
    public static final String DEFAULT = "application/octet-stream";

    private ContentType() {}

    /**
     * Why {@code header} is not a content type this store keeps, or {@code null} if it is: printable US-ASCII
     * of at most {@link #MAX_BYTES} bytes shaped {@code type "/" subtype *( ";" parameter )}, both names RFC
     * 9110 tokens. Parameters are not parsed further and are kept as given.
     */
    public static @Nullable String invalidReason(String header) {
        int n = header.length();
        if (n == 0 || n > MAX_BYTES) {
            return "Content-Type must be 1 to " + MAX_BYTES + " characters, got " + n;
        }
        int slash = -1;
        int end = n; // end of type/subtype: the first ';' or whitespace
        for (int i = 0; i < n; i++) {
            char c = header.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return "Content-Type must be printable US-ASCII";
            }
            if (end == n && (c == ';' || c == ' ' || c == '\t')) {
                end = i;
            } else if (end == n && c == '/') {
                if (slash >= 0) {
                    return "Content-Type must be type/subtype, got more than one '/'";
                }
                slash = i;
            } else if (end == n && !isTokenChar(c)) {
                return "Content-Type must be type/subtype of token characters, got '" + c + "'";
            }
        }
        int p = end;
        while (p < n && (header.charAt(p) == ' ' || header.charAt(p) == '\t')) {
            p++;
        }
        if (slash <= 0 || slash == end - 1 || (p < n && header.charAt(p) != ';')) {
            return "Content-Type must be type/subtype[; parameter=value]";
        }
        return null;
    }

    /** Whether {@code header} (valid) means an untyped value: {@code application/octet-stream}, no parameters. */
    public static boolean isDefault(String header) {
        return header.equalsIgnoreCase(DEFAULT);
    }

    /**
     * The stored value of a typed entry: the prefix of {@code type} followed by {@code value}'s bytes.
     *
     * @throws IllegalArgumentException if {@code type} is not {@linkplain #invalidReason valid}
     */
    public static byte[] prefixed(String type, MemorySegment value) {
        String reason = invalidReason(type);
        if (reason != null) {
            throw new IllegalArgumentException(reason);
        }
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        long n = value.byteSize();
        byte[] out = new byte[Math.toIntExact(1 + t.length + n)];
        out[0] = (byte) t.length;
        System.arraycopy(t, 0, out, 1, t.length);
        MemorySegment.copy(value, ValueLayout.JAVA_BYTE, 0, out, 1 + t.length, (int) n);
        return out;
    }

    /** {@link #prefixed(String, MemorySegment)} of an array. */
    public static byte[] prefixed(String type, byte[] value) {
        return prefixed(type, MemorySegment.ofArray(value));
    }

    /**
     * Bytes of the prefix at the start of the {@code valueLength} stored value bytes at {@code valueOffset}
     * of {@code src}, checked.
     *
     * @throws IllegalArgumentException if the length byte is 0 or above {@link #MAX_BYTES}, the prefix
     *                                  passes the value's end, or a byte of the type is not printable
     *                                  US-ASCII (served in a response header, it must hold no CR or LF);
     *                                  decoders turn it into their corruption error
     */
    public static int prefixLength(MemorySegment src, long valueOffset, long valueLength) {
        if (valueLength < 1) {
            throw new IllegalArgumentException("typed entry without a content type");
        }
        int t = src.get(U8, valueOffset) & 0xFF;
        if (t == 0 || t > MAX_BYTES || 1 + t > valueLength) {
            throw new IllegalArgumentException(
                    "content type length " + t + " in a typed value of " + valueLength + " bytes");
        }
        for (long i = valueOffset + 1; i <= valueOffset + t; i++) {
            int b = src.get(U8, i) & 0xFF;
            if (b < 0x20 || b > 0x7E) {
                throw new IllegalArgumentException("content type byte 0x" + Integer.toHexString(b) + " not printable");
            }
        }
        return 1 + t;
    }

    /** {@link #prefixLength(MemorySegment, long, long)} of a stored value array. */
    public static int prefixLength(byte[] stored) {
        return prefixLength(MemorySegment.ofArray(stored), 0, stored.length);
    }

    /** Offset of the bare value in a typed stored value that starts at {@code valueOffset} (already checked). */
    public static long bareOffset(MemorySegment src, long valueOffset) {
        return valueOffset + 1 + (src.get(U8, valueOffset) & 0xFF);
    }

    /** The content type of the typed stored value that starts at {@code valueOffset} (already checked). */
    public static String typeOf(MemorySegment src, long valueOffset) {
        int t = src.get(U8, valueOffset) & 0xFF;
        byte[] b = new byte[t];
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, valueOffset + 1, b, 0, t);
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** The content type of a typed stored value array (checked). */
    public static String typeOf(byte[] stored) {
        int p = prefixLength(stored);
        return new String(stored, 1, p - 1, StandardCharsets.US_ASCII);
    }

    /** The bare value of a typed stored value array (a copy without the prefix; checked). */
    public static byte[] bare(byte[] stored) {
        return Arrays.copyOfRange(stored, prefixLength(stored), stored.length);
    }

    /** RFC 9110 {@code tchar}. */
    private static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
