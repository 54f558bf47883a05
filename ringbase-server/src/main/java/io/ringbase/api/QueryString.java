package io.ringbase.api;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The parameters of a URI query ({@code a=1&b=x%20y}), decoded as in HTML form encoding
 * (<a href="https://url.spec.whatwg.org/#application/x-www-form-urlencoded">application/x-www-form-urlencoded</a>):
 * {@code %XX} is the byte XX, {@code +} is a space, and the decoded bytes must be valid UTF-8.
 *
 * <p>Values are kept as the decoded bytes, so a key reaches the engine without a round trip through
 * {@code String}. A parameter without {@code =} has an empty value; empty segments ({@code a=1&&b=2}) are
 * skipped; a parameter given twice is rejected, since which one wins would be a guess.
 *
 * <p>Errors (all {@link BadRequestException}): a {@code %} not followed by two hex digits, bytes that are
 * not valid UTF-8 (in a name or a value), a raw non-ASCII character, a duplicate parameter name.
 *
 * <p>The whole query is checked by {@link #parse}, but nothing is decoded or copied until a parameter
 * is asked for: a lookup scans the raw text (queries hold a handful of parameters) and decodes only
 * the value it returns. So a point request's query costs one small object and the key's bytes.
 */
public final class QueryString {

    private static final QueryString EMPTY = new QueryString(new byte[0], 0);

    private final byte[] raw;
    private final int from;

    private QueryString(byte[] raw, int from) {
        this.raw = raw;
        this.from = from;
    }

    /**
     * Parses the query part of a URI, without the leading {@code ?}.
     *
     * @param rawQuery the raw (still percent-encoded) query, or {@code null} or empty for none
     */
    public static QueryString parse(@Nullable String rawQuery) throws BadRequestException {
        // a character above 0xFF cannot come off the wire (the decoder takes ASCII targets only); as '?'
        // it is rejected below like any raw non-ASCII character would be
        return rawQuery == null ? EMPTY : parse(rawQuery.getBytes(StandardCharsets.ISO_8859_1), 0);
    }

    /**
     * Parses the query that starts at {@code from} of {@code text} and runs to its end: a request target's
     * bytes as they came, one byte a character. The array is kept, not copied.
     */
    public static QueryString parse(byte[] text, int from) throws BadRequestException {
        int len = text.length;
        if (from >= len) {
            return EMPTY;
        }
        for (int pos = from; pos < len; ) {
            int end = segmentEnd(text, pos, len);
            if (end > pos) {
                int nameEnd = nameEnd(text, pos, end);
                check(text, pos, nameEnd);
                if (nameEnd < end) {
                    check(text, nameEnd + 1, end);
                }
                for (int p = from; p < pos; ) { // earlier segments: same name twice?
                    int e = segmentEnd(text, p, len);
                    if (e > p && sameDecoded(text, p, nameEnd(text, p, e), pos, nameEnd)) {
                        throw new BadRequestException(
                                "parameter '" + new String(decode(text, pos, nameEnd), StandardCharsets.UTF_8)
                                        + "' given more than once");
                    }
                    p = e + 1;
                }
            }
            pos = end + 1;
        }
        return new QueryString(text, from);
    }

    /** The decoded bytes of parameter {@code name} (valid UTF-8), or {@code null} if absent. */
    public byte @Nullable [] bytes(String name) {
        int at = find(name);
        if (at < 0) {
            return null;
        }
        int end = segmentEnd(raw, at, raw.length);
        int nameEnd = nameEnd(raw, at, end);
        return nameEnd == end ? new byte[0] : decode(raw, nameEnd + 1, end);
    }

    /** The decoded value of parameter {@code name}, or {@code null} if absent. */
    public @Nullable String string(String name) {
        byte[] b = bytes(name);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /**
     * The decimal integer value of parameter {@code name}, or {@code dflt} if absent.
     *
     * @throws BadRequestException if present but not an {@code int}
     */
    public int integer(String name, int dflt) throws BadRequestException {
        int at = find(name);
        if (at < 0) {
            return dflt;
        }
        int end = segmentEnd(raw, at, raw.length);
        int vs = nameEnd(raw, at, end) + 1;
        if (vs < end && end - vs <= 9 && allDigits(raw, vs, end)) { // the usual case, parsed in place
            int n = 0;
            for (int i = vs; i < end; i++) {
                n = n * 10 + (raw[i] - '0');
            }
            return n;
        }
        String s = Objects.requireNonNull(string(name)); // present: find(name) found it above
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            String shown = s.length() <= 64 ? s : s.substring(0, 64) + "...";
            throw new BadRequestException("parameter '" + name + "' must be an integer, got '" + shown + "'");
        }
    }

    /** Names of all parameters present (decoded). */
    public Set<String> names() {
        Set<String> names = new HashSet<>();
        int len = raw.length;
        for (int pos = from; pos < len; ) {
            int end = segmentEnd(raw, pos, len);
            if (end > pos) {
                names.add(new String(decode(raw, pos, nameEnd(raw, pos, end)), StandardCharsets.UTF_8));
            }
            pos = end + 1;
        }
        return names;
    }

    /** Start of the segment whose decoded name is {@code name}, or -1. */
    private int find(String name) {
        int len = raw.length;
        for (int pos = from; pos < len; ) {
            int end = segmentEnd(raw, pos, len);
            if (end > pos && nameIs(raw, pos, nameEnd(raw, pos, end), name)) {
                return pos;
            }
            pos = end + 1;
        }
        return -1;
    }

    private static int segmentEnd(byte[] s, int pos, int len) {
        for (int i = pos; i < len; i++) {
            if (s[i] == '&') {
                return i;
            }
        }
        return len;
    }

    private static int nameEnd(byte[] s, int pos, int end) {
        for (int i = pos; i < end; i++) {
            if (s[i] == '=') {
                return i;
            }
        }
        return end;
    }

    private static boolean allDigits(byte[] s, int from, int to) {
        for (int i = from; i < to; i++) {
            byte c = s[i];
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code s[from, to)} decodes to {@code name}, an ASCII parameter name. */
    private static boolean nameIs(byte[] s, int from, int to, String name) {
        int n = 0;
        for (int i = from; i < to; i++) {
            int b = decodedByte(s, i);
            if (s[i] == '%') {
                i += 2;
            }
            if (n == name.length() || b != name.charAt(n)) {
                return false;
            }
            n++;
        }
        return n == name.length();
    }

    /** Whether two already checked ranges decode to the same bytes. */
    private static boolean sameDecoded(byte[] s, int aFrom, int aTo, int bFrom, int bTo) {
        int i = aFrom;
        int j = bFrom;
        while (i < aTo && j < bTo) {
            if (decodedByte(s, i) != decodedByte(s, j)) {
                return false;
            }
            i += s[i] == '%' ? 3 : 1;
            j += s[j] == '%' ? 3 : 1;
        }
        return i >= aTo && j >= bTo;
    }

    /** The byte that the (checked) escape or character at {@code i} stands for, 0..255. */
    private static int decodedByte(byte[] s, int i) {
        int c = s[i] & 0xFF;
        if (c == '%') {
            return (hexValue(s[i + 1]) << 4) | hexValue(s[i + 2]);
        }
        return c == '+' ? ' ' : c;
    }

    /**
     * Checks that {@code s[from, to)} is well formed: every {@code %} starts a two-digit escape, no raw
     * non-ASCII character, and the decoded bytes are valid UTF-8 (RFC 3629, checked as they stream).
     */
    private static void check(byte[] s, int from, int to) throws BadRequestException {
        int need = 0; // continuation bytes still expected
        int min = 0x80; // smallest valid value of the second byte's range (overlongs, surrogates)
        int max = 0xBF;
        for (int i = from; i < to; i++) {
            int c = s[i] & 0xFF;
            int b;
            if (c == '%') {
                if (i + 2 >= to) {
                    throw new BadRequestException("truncated percent escape at offset " + (i - from));
                }
                int hi = hexValue(s[i + 1]);
                int lo = hexValue(s[i + 2]);
                if (hi < 0 || lo < 0) {
                    throw new BadRequestException("invalid percent escape at offset " + (i - from));
                }
                b = (hi << 4) | lo;
                i += 2;
            } else if (c >= 0x80) {
                // a raw non-ASCII byte is not valid in a URI: reject it rather than guess an encoding
                throw new BadRequestException("raw non-ASCII character in query; percent-encode it");
            } else {
                b = c;
            }
            if (need > 0) {
                if (b < min || b > max) {
                    throw notUtf8();
                }
                min = 0x80;
                max = 0xBF;
                need--;
            } else if (b >= 0x80) {
                if (b >= 0xC2 && b <= 0xDF) {
                    need = 1;
                } else if (b >= 0xE0 && b <= 0xEF) {
                    need = 2;
                    min = b == 0xE0 ? 0xA0 : 0x80;
                    max = b == 0xED ? 0x9F : 0xBF;
                } else if (b >= 0xF0 && b <= 0xF4) {
                    need = 3;
                    min = b == 0xF0 ? 0x90 : 0x80;
                    max = b == 0xF4 ? 0x8F : 0xBF;
                } else {
                    throw notUtf8();
                }
            }
        }
        if (need > 0) {
            throw notUtf8();
        }
    }

    private static BadRequestException notUtf8() {
        return new BadRequestException("query parameter is not valid UTF-8 after percent-decoding");
    }

    /**
     * {@code bytes} percent-encoded for a query value (RFC 3986 §2.1): the unreserved characters
     * {@code A-Z a-z 0-9 - . _ ~} as they are, every other byte as {@code %XX} (upper-case hex), so
     * that {@link #bytes} of the result gives {@code bytes} back.
     */
    static String encode(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xFF;
            boolean unreserved = (c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~';
            if (unreserved) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Decodes the (checked) {@code s[from, to)}: {@code %XX} to a byte, {@code +} to a space. */
    static byte[] decode(byte[] s, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (s[i] == '%') {
                i += 2;
            }
            n++;
        }
        byte[] out = new byte[n];
        int k = 0;
        for (int i = from; i < to; i++) {
            out[k++] = (byte) decodedByte(s, i);
            if (s[i] == '%') {
                i += 2;
            }
        }
        return out;
    }

    /** The value of an ASCII hex digit, or -1. */
    private static int hexValue(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
