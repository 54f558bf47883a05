package io.ringbase.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

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
 * not valid UTF-8 (in a name or a value), a duplicate parameter name.
 */
public final class QueryString {

    private static final QueryString EMPTY = new QueryString(Map.of());

    private final Map<String, byte[]> params;

    private QueryString(Map<String, byte[]> params) {
        this.params = params;
    }

    /**
     * Parses the query part of a URI, without the leading {@code ?}.
     *
     * @param rawQuery the raw (still percent-encoded) query, or {@code null} or empty for none
     */
    public static QueryString parse(String rawQuery) throws BadRequestException {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return EMPTY;
        }
        Map<String, byte[]> params = new HashMap<>(4);
        int pos = 0;
        int len = rawQuery.length();
        while (pos <= len) {
            int amp = rawQuery.indexOf('&', pos);
            int end = amp < 0 ? len : amp;
            if (end > pos) {
                int eq = rawQuery.indexOf('=', pos);
                int nameEnd = eq < 0 || eq > end ? end : eq;
                String name = new String(decode(rawQuery, pos, nameEnd), StandardCharsets.UTF_8);
                byte[] value = nameEnd == end ? new byte[0] : decode(rawQuery, nameEnd + 1, end);
                if (params.putIfAbsent(name, value) != null) {
                    throw new BadRequestException("parameter '" + name + "' given more than once");
                }
            }
            pos = end + 1;
        }
        return new QueryString(params);
    }

    /** The decoded bytes of parameter {@code name} (valid UTF-8), or {@code null} if absent. */
    public byte[] bytes(String name) {
        return params.get(name);
    }

    /** The decoded value of parameter {@code name}, or {@code null} if absent. */
    public String string(String name) {
        byte[] b = params.get(name);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /**
     * The decimal integer value of parameter {@code name}, or {@code dflt} if absent.
     *
     * @throws BadRequestException if present but not an {@code int}
     */
    public int integer(String name, int dflt) throws BadRequestException {
        String s = string(name);
        if (s == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            String shown = s.length() <= 64 ? s : s.substring(0, 64) + "...";
            throw new BadRequestException("parameter '" + name + "' must be an integer, got '" + shown + "'");
        }
    }

    /** Names of all parameters present. */
    public Set<String> names() {
        return params.keySet();
    }

    /** Decodes {@code s[from, to)}: {@code %XX} to a byte, {@code +} to a space; checks UTF-8. */
    static byte[] decode(String s, int from, int to) throws BadRequestException {
        byte[] out = new byte[to - from]; // decoding never grows: "%XX" -> 1 byte, other ASCII -> 1 byte
        int n = 0;
        boolean ascii = true;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= to) {
                    throw new BadRequestException("truncated percent escape at offset " + (i - from));
                }
                int hi = hexValue(s.charAt(i + 1));
                int lo = hexValue(s.charAt(i + 2));
                if (hi < 0 || lo < 0) {
                    throw new BadRequestException("invalid percent escape at offset " + (i - from));
                }
                byte b = (byte) ((hi << 4) | lo);
                ascii &= b >= 0;
                out[n++] = b;
                i += 2;
            } else if (c == '+') {
                out[n++] = ' ';
            } else if (c < 0x80) {
                out[n++] = (byte) c;
            } else {
                // Netty's decoder maps request-line bytes to chars one to one (ISO-8859-1); a raw non-ASCII
                // byte is not valid in a URI, so reject it rather than guess an encoding.
                throw new BadRequestException("raw non-ASCII character in query; percent-encode it");
            }
        }
        byte[] result = n == out.length ? out : Arrays.copyOf(out, n);
        if (!ascii) {
            requireUtf8(result);
        }
        return result;
    }

    /** The value of an ASCII hex digit, or -1. */
    private static int hexValue(char c) {
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

    private static void requireUtf8(byte[] bytes) throws BadRequestException {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            throw new BadRequestException("query parameter is not valid UTF-8 after percent-decoding");
        }
    }
}
