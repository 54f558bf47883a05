package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Complete HTTP/1.x responses of the point-request path, written byte for byte into one pooled buffer
 * from prebuilt status lines and header lines: no response object, no header map. The bytes are what
 * Netty's encoder writes for the same responses (lower-case field names; a {@code connection} field
 * only where the version's default does not hold).
 *
 * <p>The caller writes the buffer to the channel past the HTTP encoder ({@link ResponseEncoder} lets a
 * plain {@code ByteBuf} through) and gives up ownership.
 */
public final class RawResponses {

    /** The statuses of the point-request path. */
    @SuppressWarnings("ImmutableEnumChecker") // the arrays are private and only ever copied out
    public enum Status {
        OK("200 OK"),
        CREATED("201 Created"),
        ACCEPTED("202 Accepted"),
        NOT_FOUND("404 Not Found");

        private final byte[] http11;
        private final byte[] http10;

        Status(String text) {
            this.http11 = ascii("HTTP/1.1 " + text + "\r\n");
            this.http10 = ascii("HTTP/1.0 " + text + "\r\n");
        }
    }

    private static final byte[] OCTET_STREAM = ascii("content-type: application/octet-stream\r\n");
    private static final byte[] CONTENT_TYPE = ascii("content-type: ");
    private static final byte[] TEXT_PLAIN = ascii("content-type: text/plain; charset=utf-8\r\n");
    private static final byte[] CONTENT_LENGTH = ascii("content-length: ");
    private static final byte[] CONTENT_LENGTH_0 = ascii("content-length: 0\r\n");
    private static final byte[] CONNECTION_CLOSE = ascii("connection: close\r\n");
    private static final byte[] CONNECTION_KEEP_ALIVE = ascii("connection: keep-alive\r\n");
    private static final byte[] CRLF = ascii("\r\n");
    private static final byte[] ETAG = ascii("etag: \"");
    private static final byte[] HEX = ascii("0123456789abcdef");
    private static final byte[] NO_SUCH_KEY = ascii("no such key\n");
    private static final byte[] NO_SUCH_KEY_LENGTH = ascii("content-length: " + NO_SUCH_KEY.length + "\r\n");

    /** Room for the longest head this class writes, bytes. */
    static final int MAX_HEAD_BYTES = 160;

    /** Digits of a version in an {@code ETag}: 16 lower-case hex digits, zero-padded (docs/http-api.md). */
    public static final int ETAG_DIGITS = 16;

    private RawResponses() {}

    /**
     * A bodiless response ({@code content-length: 0}), e.g. 201 or 202, with the version written as its
     * {@code etag}.
     */
    public static ByteBuf empty(
            ByteBufAllocator alloc, HttpVersion version, Status status, boolean keepAlive, long etagVersion) {
        ByteBuf out = alloc.directBuffer(MAX_HEAD_BYTES);
        statusLine(out, version, status);
        etag(out, etagVersion);
        out.writeBytes(CONTENT_LENGTH_0);
        connection(out, version, keepAlive);
        out.writeBytes(CRLF);
        return out;
    }

    /** 404 with the body {@code no such key}. */
    public static ByteBuf notFound(ByteBufAllocator alloc, HttpVersion version, boolean keepAlive) {
        ByteBuf out = alloc.directBuffer(MAX_HEAD_BYTES + NO_SUCH_KEY.length);
        statusLine(out, version, Status.NOT_FOUND);
        out.writeBytes(TEXT_PLAIN);
        out.writeBytes(NO_SUCH_KEY_LENGTH);
        connection(out, version, keepAlive);
        out.writeBytes(CRLF);
        out.writeBytes(NO_SUCH_KEY);
        return out;
    }

    /**
     * The head of a 200 response with a body of {@code bodyLength} bytes of {@code contentType} (printable
     * US-ASCII, as the store keeps it; {@code null}: {@code application/octet-stream}) and the value's
     * version as its {@code etag}, in a buffer with room for the body: the caller appends exactly that many
     * bytes.
     */
    public static ByteBuf valueHead(
            ByteBufAllocator alloc,
            HttpVersion version,
            boolean keepAlive,
            int bodyLength,
            long etagVersion,
            @Nullable String contentType) {
        int typeBytes = contentType == null ? 0 : contentType.length();
        ByteBuf out = alloc.directBuffer(MAX_HEAD_BYTES + typeBytes + bodyLength);
        statusLine(out, version, Status.OK);
        etag(out, etagVersion);
        if (contentType == null) {
            out.writeBytes(OCTET_STREAM);
        } else {
            out.writeBytes(CONTENT_TYPE);
            out.writeCharSequence(contentType, StandardCharsets.US_ASCII);
            out.writeBytes(CRLF);
        }
        out.writeBytes(CONTENT_LENGTH);
        writeDecimal(out, bodyLength);
        out.writeBytes(CRLF);
        connection(out, version, keepAlive);
        out.writeBytes(CRLF);
        return out;
    }

    /**
     * The status code of a response this class wrote (its bytes 9 to 11, {@code HTTP/1.x NNN}), read
     * without moving the buffer's indexes: for metrics.
     */
    public static int status(ByteBuf response) {
        int at = response.readerIndex() + 9;
        return (response.getByte(at) - '0') * 100
                + (response.getByte(at + 1) - '0') * 10
                + (response.getByte(at + 2) - '0');
    }

    private static void statusLine(ByteBuf out, HttpVersion version, Status status) {
        out.writeBytes(version.equals(HttpVersion.HTTP_1_0) ? status.http10 : status.http11);
    }

    /** {@code etag: "<16 hex digits>"} and CRLF: the strong entity tag of a version. */
    private static void etag(ByteBuf out, long v) {
        out.writeBytes(ETAG);
        for (int shift = 4 * (ETAG_DIGITS - 1); shift >= 0; shift -= 4) {
            out.writeByte(HEX[(int) (v >>> shift) & 0xF]);
        }
        out.writeByte('"');
        out.writeBytes(CRLF);
    }

    private static void connection(ByteBuf out, HttpVersion version, boolean keepAlive) {
        if (version.equals(HttpVersion.HTTP_1_0)) {
            if (keepAlive) {
                out.writeBytes(CONNECTION_KEEP_ALIVE);
            }
        } else if (!keepAlive) {
            out.writeBytes(CONNECTION_CLOSE);
        }
    }

    private static void writeDecimal(ByteBuf out, int n) {
        if (n == 0) {
            out.writeByte('0');
            return;
        }
        int digits = 0;
        for (int v = n; v > 0; v /= 10) {
            digits++;
        }
        int at = out.writerIndex() + digits;
        out.ensureWritable(digits);
        for (int v = n; v > 0; v /= 10) {
            out.setByte(--at, '0' + v % 10);
        }
        out.writerIndex(out.writerIndex() + digits);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
