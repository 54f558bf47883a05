package io.ringbase.api.wire;

import static io.ringbase.api.wire.WireBytes.ascii;
import static io.ringbase.api.wire.WireBytes.equalsIgnoreCase;
import static io.ringbase.api.wire.WireBytes.isOws;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The header section of the request being read (RFC 9112 §5) and the framing it sets: reads the field
 * lines ({@code name ":" OWS value OWS}, within {@code maxHeaderBytes} together), notes the fields that
 * frame the request ({@code Content-Length}, {@code Transfer-Encoding}, {@code Host},
 * {@code Connection}, {@code Expect}) in place, and keeps the fields as strings unless told not to.
 * Once the section has ended, {@link #framingError} applies the rules that make a framing invalid and
 * {@link #keepAlive} says whether the connection may stay open.
 *
 * <p>One per {@link RequestDecoder}, {@link #reset} for each request: reading the fields of a request
 * that keeps none allocates nothing, unless it carries {@code If-Match} or {@code If-None-Match}, which
 * every request keeps (a conditional write), or a {@code Content-Type} other than
 * {@code application/octet-stream} (a typed PUT). Not thread-safe (the connection's event loop).
 */
final class HeaderFields {

    /** {@link #read}: the empty line that ends the section was read. */
    static final int END = 0;
    /** {@link #read}: the rest of the section has not arrived yet. */
    static final int NEED_MORE = 1;
    /** {@link #read}: the field lines pass {@code maxHeaderBytes}. */
    static final int TOO_LONG = 2;
    /** {@link #read}: a field line is not valid. */
    static final int MALFORMED = 3;

    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] EXPECT = ascii("expect");
    private static final byte[] HOST = ascii("host");
    private static final byte[] AUTHORIZATION = ascii("authorization");
    private static final byte[] CHUNKED = ascii("chunked");
    private static final byte[] CLOSE = ascii("close");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    private static final byte[] CONTINUE_100 = ascii("100-continue");
    private static final byte[] IF_MATCH = ascii("if-match");
    private static final byte[] IF_NONE_MATCH = ascii("if-none-match");
    private static final byte[] CONTENT_TYPE = ascii("content-type");
    private static final byte[] OCTET_STREAM = ascii("application/octet-stream");

    private final int maxHeaderBytes;
    private @Nullable List<String> headers;
    private int headerBytes;

    // the framing the fields set, which the decoder reads once the section has ended
    /** The body's length by Content-Length (0 if none); the decoder counts it down as it skips a body. */
    long contentLength;
    /** Transfer-Encoding ends with {@code chunked}. */
    boolean chunked;
    /** {@code Expect: 100-continue}. */
    boolean expectContinue;
    /** An {@code Expect} field with another expectation. */
    boolean badExpectation;
    /**
     * The first {@code Authorization} field's value, kept even when the request keeps no other field (the
     * client token of every request, point requests included), or {@code null}.
     */
    @Nullable
    String authorization;

    private boolean sawContentLength;
    private int hostFields;
    private boolean connectionClose;
    private boolean connectionKeepAlive;

    /** @param maxHeaderBytes most bytes of all field lines of a request together */
    HeaderFields(int maxHeaderBytes) {
        this.maxHeaderBytes = maxHeaderBytes;
    }

    /** Starts the header section of a new request; {@code keepHeaders}: keep its fields as strings. */
    void reset(boolean keepHeaders) {
        headers = keepHeaders ? new ArrayList<>(8) : null;
        headerBytes = 0;
        contentLength = 0;
        chunked = false;
        sawContentLength = false;
        hostFields = 0;
        connectionClose = false;
        connectionKeepAlive = false;
        expectContinue = false;
        badExpectation = false;
        authorization = null;
    }

    /**
     * Reads field lines from the reader index up to and including the empty line that ends the section.
     *
     * @return {@link #END} (the reader index past the empty line), {@link #NEED_MORE} (past the whole
     *         lines read), {@link #TOO_LONG} or {@link #MALFORMED}
     */
    int read(ByteBuf in) {
        while (true) {
            int eol = WireBytes.lineEnd(in, maxHeaderBytes - headerBytes + 2);
            if (eol == -1) {
                return NEED_MORE;
            }
            if (eol == -2) {
                return TOO_LONG;
            }
            int start = in.readerIndex();
            if (eol == start) { // the empty line: end of the header section
                WireBytes.skipLine(in, eol);
                return END;
            }
            headerBytes += eol - start + 2;
            if (!headerField(in, start, eol)) {
                return MALFORMED;
            }
            WireBytes.skipLine(in, eol);
        }
    }

    /** Reads one field line [start, eol); false if malformed. */
    private boolean headerField(ByteBuf in, int start, int eol) {
        int colon = WireBytes.indexOf(in, start, eol, (byte) ':');
        if (colon <= start) {
            return false;
        }
        for (int i = start; i < colon; i++) {
            if (!WireBytes.isTokenChar(in.getByte(i))) {
                return false; // includes whitespace before the colon (RFC 9112 §5.1) and obs-fold lines
            }
        }
        int vs = colon + 1;
        int ve = eol;
        while (vs < ve && isOws(in.getByte(vs))) {
            vs++;
        }
        while (ve > vs && isOws(in.getByte(ve - 1))) {
            ve--;
        }
        for (int i = vs; i < ve; i++) {
            byte b = in.getByte(i);
            if ((b < 0x20 && b != '\t') || b == 0x7F) {
                return false;
            }
        }
        int nameLen = colon - start;
        if (equalsIgnoreCase(in, start, nameLen, CONTENT_LENGTH)) {
            long n = WireBytes.parseDecimal(in, vs, ve);
            if (n < 0 || (sawContentLength && n != contentLength)) {
                return false;
            }
            sawContentLength = true;
            contentLength = n;
        } else if (equalsIgnoreCase(in, start, nameLen, TRANSFER_ENCODING)) {
            if (!WireBytes.endsWithToken(in, vs, ve, CHUNKED)) {
                return false; // only chunked is supported; RFC 9112 §6.3 would make this a 501, 400 is safe
            }
            chunked = true;
        } else if (equalsIgnoreCase(in, start, nameLen, CONNECTION)) {
            connectionClose |= WireBytes.hasToken(in, vs, ve, CLOSE);
            connectionKeepAlive |= WireBytes.hasToken(in, vs, ve, KEEP_ALIVE);
        } else if (equalsIgnoreCase(in, start, nameLen, HOST)) {
            hostFields++;
        } else if (equalsIgnoreCase(in, start, nameLen, EXPECT)) {
            if (equalsIgnoreCase(in, vs, ve - vs, CONTINUE_100)) {
                expectContinue = true;
            } else {
                badExpectation = true;
            }
        } else if (authorization == null && equalsIgnoreCase(in, start, nameLen, AUTHORIZATION)) {
            authorization = in.toString(vs, ve - vs, StandardCharsets.ISO_8859_1);
        }
        List<String> kept = headers;
        if (kept == null
                && (equalsIgnoreCase(in, start, nameLen, IF_MATCH)
                        || equalsIgnoreCase(in, start, nameLen, IF_NONE_MATCH)
                        || (equalsIgnoreCase(in, start, nameLen, CONTENT_TYPE)
                                && !equalsIgnoreCase(in, vs, ve - vs, OCTET_STREAM)))) {
            // a request that keeps no fields (a point request) still keeps its preconditions and a content
            // type other than the default, which a PUT stores
            kept = new ArrayList<>(2);
            headers = kept;
        }
        if (kept != null) { // a list exactly when the request keeps its fields
            kept.add(in.toString(start, nameLen, StandardCharsets.US_ASCII));
            kept.add(in.toString(vs, ve - vs, StandardCharsets.ISO_8859_1));
        }
        return true;
    }

    /**
     * Why the framing of a request of {@code version} with these fields is invalid, or {@code null} if
     * it is valid: the reason of the 400, after which the connection must close.
     */
    @SuppressWarnings("ReferenceEquality") // the decoder makes only the two constants (RequestLine.version)
    @Nullable
    String framingError(HttpVersion version) {
        if (chunked && sawContentLength) {
            return "both Content-Length and Transfer-Encoding"; // request smuggling (RFC 9112 §6.1)
        }
        if (chunked && version == HttpVersion.HTTP_1_0) {
            // RFC 9112 §6.1: HTTP/1.0 has no Transfer-Encoding, so the framing is faulty and the connection
            // must close; reading it as chunked would run whatever a client hid after the last chunk
            return "Transfer-Encoding in an HTTP/1.0 request";
        }
        if (hostFields > 1 || (hostFields == 0 && version == HttpVersion.HTTP_1_1)) {
            // RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host and for any request with more than one
            return hostFields == 0 ? "no Host header field" : "more than one Host header field";
        }
        return null;
    }

    /**
     * Whether the connection may stay open after the request (RFC 9112 §9.3): in HTTP/1.1 unless
     * {@code Connection: close}, in HTTP/1.0 only with {@code Connection: keep-alive}.
     */
    @SuppressWarnings("ReferenceEquality") // the decoder makes only the two constants (RequestLine.version)
    boolean keepAlive(HttpVersion version) {
        return version == HttpVersion.HTTP_1_1 ? !connectionClose : connectionKeepAlive && !connectionClose;
    }

    /** The fields kept (name, value, name, value, ...), or {@code null} if none are; handed over once. */
    @Nullable
    List<String> takeHeaders() {
        List<String> h = headers;
        headers = null;
        return h;
    }
}
