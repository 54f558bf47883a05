package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCounted;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP/1.x request as {@link RequestDecoder} read it: method, target, version, whether the
 * connection may stay open, the body, and the header fields (on the point-request path only its
 * preconditions).
 *
 * <p>Owns its body: whoever takes the request must {@link #release()} it exactly once.
 */
public final class Request {

    private final HttpMethod method;
    private final byte[] target;
    private @Nullable String uri; // made from target when first asked
    private final HttpVersion version;
    private final boolean keepAlive;
    private final @Nullable List<String> headers; // name, value, name, value, ...; null when not kept
    private final @Nullable String authorization; // kept on every path, point requests included
    private @Nullable ByteBuf body; // holds the body at [bodyIndex, bodyIndex + bodyLength); owned (one reference)
    private final int bodyIndex;
    private final int bodyLength;
    private @Nullable ByteBuf content; // a slice of body, made when first asked

    /**
     * @param target the request target's bytes (ASCII)
     * @param body   a buffer holding the body at {@code bodyIndex}, {@code bodyLength} bytes; the request
     *               takes over one reference to it (the decoder's receive buffer: no slice per request)
     */
    Request(
            HttpMethod method,
            byte[] target,
            HttpVersion version,
            boolean keepAlive,
            @Nullable List<String> headers,
            @Nullable String authorization,
            ByteBuf body,
            int bodyIndex,
            int bodyLength) {
        this.authorization = authorization;
        this.method = method;
        this.target = target;
        this.version = version;
        this.keepAlive = keepAlive;
        this.headers = headers;
        this.body = body;
        this.bodyIndex = bodyIndex;
        this.bodyLength = bodyLength;
    }

    /** A request for tests and tools: no headers kept unless given, {@code content} owned by it. */
    public static Request of(HttpMethod method, String uri, @Nullable List<String> headers, ByteBuf content) {
        return new Request(
                method,
                uri.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                HttpVersion.HTTP_1_1,
                true,
                headers,
                firstValue(headers, "authorization"),
                content,
                content.readerIndex(),
                content.readableBytes());
    }

    public HttpMethod method() {
        return method;
    }

    /**
     * The request target in origin form, e.g. {@code /v0/entity?id=k}: as sent, or reduced to it from
     * absolute form ({@code http://host/v0/entity?id=k}) by the decoder.
     */
    public String uri() {
        String u = uri;
        if (u == null) {
            u = new String(target, java.nio.charset.StandardCharsets.ISO_8859_1);
            uri = u;
        }
        return u;
    }

    /** The bytes of {@link #uri()} (ASCII), not a copy: for parsing without a {@code String}. */
    public byte[] target() {
        return target;
    }

    public HttpVersion version() {
        return version;
    }

    /** Whether the client allows the connection to stay open after the response (HTTP/1.1 default). */
    public boolean keepAlive() {
        return keepAlive;
    }

    /**
     * The value of the first header field named {@code name} (case-insensitive), or {@code null}. The
     * decoder keeps header fields only for requests off the point-request path ({@code /v0/entity}),
     * which needs none but its preconditions and content type: of a point request only {@code If-Match},
     * {@code If-None-Match} and a {@code Content-Type} other than {@code application/octet-stream} are
     * kept, and this returns {@code null} for any other name.
     */
    public @Nullable String header(String name) {
        return firstValue(headers, name);
    }

    /**
     * The value of the {@code Authorization} header field (the first, if several), or {@code null}: kept
     * for every request, point requests included. Holds a credential: never log it.
     */
    public @Nullable String authorization() {
        return authorization;
    }

    private static @Nullable String firstValue(@Nullable List<String> headers, String name) {
        if (headers == null) {
            return null;
        }
        for (int i = 0; i < headers.size(); i += 2) {
            if (headers.get(i).equalsIgnoreCase(name)) {
                return headers.get(i + 1);
            }
        }
        return null;
    }

    /** The body (empty if none), a view valid until {@link #release()}. */
    public ByteBuf content() {
        ByteBuf c = content;
        if (c == null) {
            c = bodyLength == 0 ? Unpooled.EMPTY_BUFFER : bodyBuffer().slice(bodyIndex, bodyLength);
            content = c;
        }
        return c;
    }

    /**
     * The buffer holding the body; it starts at {@link #bodyIndex()}. Valid until {@link #release()}.
     *
     * @throws IllegalStateException if released
     */
    public ByteBuf bodyBuffer() {
        ByteBuf b = body;
        if (b == null) {
            throw new IllegalStateException("the request was released");
        }
        return b;
    }

    public int bodyIndex() {
        return bodyIndex;
    }

    /** Length of the body in bytes. */
    public int bodyLength() {
        return bodyLength;
    }

    /** Releases the body. Idempotent. */
    public void release() {
        ByteBuf b = body;
        if (b != null) {
            body = null;
            content = null;
            b.release();
        }
    }

    /** Releases {@code msg} if it is a request or reference counted; for discarding queued messages. */
    public static void release(Object msg) {
        if (msg instanceof Request r) {
            r.release();
        } else if (msg instanceof ReferenceCounted rc) {
            rc.release();
        }
    }

    static ByteBuf empty() {
        return Unpooled.EMPTY_BUFFER;
    }

    @Override
    public String toString() {
        return method + " " + uri() + " " + version;
    }
}
