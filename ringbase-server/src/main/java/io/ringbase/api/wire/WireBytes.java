package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The byte-level steps of the HTTP/1.1 request parser, over a {@link ByteBuf} in place and allocating
 * nothing: line ends (CRLF or bare LF), character classes of RFC 9110, case-insensitive comparison with
 * lower-case ASCII constants, comma-separated lists, and numbers.
 */
final class WireBytes {

    private WireBytes() {}

    /**
     * The index of the end of the line at the reader index (its CR, or its LF if bare), -1 if no line
     * end is within the readable bytes yet, -2 if none within {@code max} bytes.
     */
    static int lineEnd(ByteBuf in, int max) {
        int start = in.readerIndex();
        int limit = Math.min(in.writerIndex(), start + Math.max(max, 0));
        int lf = in.indexOf(start, limit, (byte) '\n');
        if (lf < 0) {
            return in.writerIndex() - start >= max ? -2 : -1;
        }
        return lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
    }

    /** Moves the reader index past the line ending at {@code eol} (CRLF or LF). */
    static void skipLine(ByteBuf in, int eol) {
        in.readerIndex(in.getByte(eol) == '\r' ? eol + 2 : eol + 1);
    }

    /** The index of the first {@code b} in [from, to), or -1. */
    static int indexOf(ByteBuf in, int from, int to, byte b) {
        return from >= to ? -1 : in.indexOf(from, to, b);
    }

    /** Whether [from, to) holds only visible ASCII: no space, no control, nothing over 0x7E. */
    static boolean visibleAscii(ByteBuf in, int from, int to) {
        for (int i = from; i < to; i++) {
            byte b = in.getByte(i);
            if (b <= 0x20 || b >= 0x7F) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9110 §5.6.2 tchar. */
    static boolean isTokenChar(byte b) {
        if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')) {
            return true;
        }
        return switch (b) {
            case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~' -> true;
            default -> false;
        };
    }

    /** RFC 9110 §5.6.3 optional whitespace: space or horizontal tab. */
    static boolean isOws(byte b) {
        return b == ' ' || b == '\t';
    }

    /** Whether the {@code len} bytes at {@code from} are {@code lower}, ASCII letters in any case. */
    static boolean equalsIgnoreCase(ByteBuf in, int from, int len, byte[] lower) {
        if (len != lower.length) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            byte b = in.getByte(from + i);
            if (b >= 'A' && b <= 'Z') {
                b = (byte) (b + ('a' - 'A'));
            }
            if (b != lower[i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether [from, to) starts with {@code lowerPrefix}, ASCII letters in any case. */
    static boolean startsWithIgnoreCase(ByteBuf in, int from, int to, byte[] lowerPrefix) {
        return to - from >= lowerPrefix.length && equalsIgnoreCase(in, from, lowerPrefix.length, lowerPrefix);
    }

    /** Whether the comma-separated list in [from, to) holds {@code token} (case-insensitive). */
    static boolean hasToken(ByteBuf in, int from, int to, byte[] token) {
        int i = from;
        while (i < to) {
            int comma = indexOf(in, i, to, (byte) ',');
            int end = comma < 0 ? to : comma;
            int s = i;
            int e = end;
            while (s < e && isOws(in.getByte(s))) {
                s++;
            }
            while (e > s && isOws(in.getByte(e - 1))) {
                e--;
            }
            if (equalsIgnoreCase(in, s, e - s, token)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }

    /** Whether the last element of the comma-separated list in [from, to) is {@code token}. */
    static boolean endsWithToken(ByteBuf in, int from, int to, byte[] token) {
        int comma = -1;
        for (int i = to - 1; i >= from; i--) {
            if (in.getByte(i) == ',') {
                comma = i;
                break;
            }
        }
        int s = comma < 0 ? from : comma + 1;
        while (s < to && isOws(in.getByte(s))) {
            s++;
        }
        return equalsIgnoreCase(in, s, to - s, token);
    }

    /** A non-negative decimal in [from, to), or -1 if not one (or over 18 digits). */
    static long parseDecimal(ByteBuf in, int from, int to) {
        if (from >= to || to - from > 18) {
            return -1;
        }
        long n = 0;
        for (int i = from; i < to; i++) {
            byte b = in.getByte(i);
            if (b < '0' || b > '9') {
                return -1;
            }
            n = n * 10 + (b - '0');
        }
        return n;
    }

    /** A hexadecimal chunk size in [from, to) (trailing whitespace allowed), or -1. */
    static long parseHex(ByteBuf in, int from, int to) {
        while (to > from && isOws(in.getByte(to - 1))) {
            to--;
        }
        if (from >= to || to - from > 15) {
            return -1;
        }
        long n = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(in.getByte(i), 16);
            if (d < 0) {
                return -1;
            }
            n = (n << 4) | d;
        }
        return n;
    }

    /** The bytes of an ASCII string, for the constants the parser compares with. */
    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
