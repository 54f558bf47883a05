package io.ringbase.api.wire;

import static io.ringbase.api.wire.WireBytes.ascii;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The parts of an HTTP/1.x request line ({@code METHOD SP target SP HTTP/1.x}, RFC 9112 §3) and its
 * target: the method, the version, the reduction of an absolute-form target to origin form
 * (RFC 9112 §3.2.2), and whether a target is on a path that keeps no header fields. Static steps over
 * the receive buffer, which {@link RequestDecoder} calls as it walks the line; the common methods and
 * versions allocate nothing.
 */
final class RequestLine {

    private static final byte[] HTTP_SCHEME = ascii("http://");
    private static final byte[] HTTPS_SCHEME = ascii("https://");

    private RequestLine() {}

    /** The method in [from, to), a token (RFC 9110 §9.1), or {@code null} if it is not one. */
    static @Nullable HttpMethod method(ByteBuf in, int from, int to) {
        int len = to - from;
        byte first = in.getByte(from);
        if (len == 3 && first == 'G' && in.getByte(from + 1) == 'E' && in.getByte(from + 2) == 'T') {
            return HttpMethod.GET;
        }
        if (len == 3 && first == 'P' && in.getByte(from + 1) == 'U' && in.getByte(from + 2) == 'T') {
            return HttpMethod.PUT;
        }
        if (len == 6
                && first == 'D'
                && in.getByte(from + 1) == 'E'
                && in.getByte(from + 2) == 'L'
                && in.getByte(from + 3) == 'E'
                && in.getByte(from + 4) == 'T'
                && in.getByte(from + 5) == 'E') {
            return HttpMethod.DELETE;
        }
        for (int i = from; i < to; i++) {
            if (!WireBytes.isTokenChar(in.getByte(i))) {
                return null;
            }
        }
        return HttpMethod.valueOf(in.toString(from, len, StandardCharsets.US_ASCII));
    }

    /** The version in [from, to): {@code HTTP/1.1} or {@code HTTP/1.0}, else {@code null}. */
    static @Nullable HttpVersion version(ByteBuf in, int from, int to) {
        if (to - from != 8
                || in.getByte(from) != 'H'
                || in.getByte(from + 1) != 'T'
                || in.getByte(from + 2) != 'T'
                || in.getByte(from + 3) != 'P'
                || in.getByte(from + 4) != '/'
                || in.getByte(from + 5) != '1'
                || in.getByte(from + 6) != '.') {
            return null;
        }
        byte minor = in.getByte(from + 7);
        return minor == '1' ? HttpVersion.HTTP_1_1 : minor == '0' ? HttpVersion.HTTP_1_0 : null;
    }

    /**
     * Where the origin form of the request target in [from, to) begins: {@code from} itself unless the
     * target is in absolute form ({@code http://} or {@code https://}, any case, then an authority), which a
     * server must accept (RFC 9112 §3.2.2) and whose authority it ignores here, as it ignores Host; then the
     * index just past the authority (its path, its query, or {@code to}). -1 if the authority is empty,
     * which RFC 9110 §4.2.1 makes invalid.
     */
    static int originFormStart(ByteBuf in, int from, int to) {
        if (in.getByte(from) == '/') {
            return from; // origin form, nearly every request: no more to check
        }
        int at;
        if (WireBytes.startsWithIgnoreCase(in, from, to, HTTP_SCHEME)) {
            at = from + HTTP_SCHEME.length;
        } else if (WireBytes.startsWithIgnoreCase(in, from, to, HTTPS_SCHEME)) {
            at = from + HTTPS_SCHEME.length;
        } else {
            return from; // another form: the router finds no such path
        }
        int authority = at;
        while (at < to && in.getByte(at) != '/' && in.getByte(at) != '?') {
            at++;
        }
        return at == authority ? -1 : at;
    }

    /** Whether target {@code t} is one of {@code paths}, with or without a query. */
    static boolean isBarePath(byte[] t, byte[][] paths) {
        for (int i = 0; i < paths.length; i++) {
            byte[] p = paths[i];
            if (t.length >= p.length
                    && java.util.Arrays.equals(t, 0, p.length, p, 0, p.length)
                    && (t.length == p.length || t[p.length] == '?')) {
                return true;
            }
        }
        return false;
    }
}
