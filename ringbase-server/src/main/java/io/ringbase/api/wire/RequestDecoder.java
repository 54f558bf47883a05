package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes HTTP/1.0 and HTTP/1.1 requests (RFC 9112) from a connection's bytes into {@link Request}s,
 * each with its whole body, or a {@link RequestError}. It replaces Netty's {@code HttpRequestDecoder}
 * plus {@code HttpObjectAggregator} for the server, which allocated a few kilobytes per request (header
 * maps and entries, strings, a composite body buffer): on the point-request path ({@code /v0/entity})
 * this decoder allocates the request object and its target string, and the body is a slice of the
 * receive buffer.
 *
 * <p>What it accepts: a request line {@code METHOD SP target SP HTTP/1.x}, the target in origin form or in
 * absolute form ({@code http://} or {@code https://}, RFC 9112 §3.2.2), which it reduces to origin form
 * (authority dropped, unchecked): {@link Request#target()} is always origin form; header fields
 * {@code name ":" OWS value OWS}, with one {@code Host} field (HTTP/1.0 may omit it; its value is not
 * checked; RFC 9112 §3.2); a body framed by {@code Content-Length} or, in HTTP/1.1 only (RFC 9112 §6.1), by
 * {@code Transfer-Encoding: chunked} (extensions and trailers skipped), never both; bare LF line ends as well
 * as CRLF; empty lines before a request line. {@code Expect: 100-continue} is answered with an
 * interim {@code 100 Continue} when the body will be read. Limits: {@code maxInitialLineBytes} for the
 * request line, {@code maxHeaderBytes} for all header lines together, {@code maxBodyBytes} for the body.
 *
 * <p>What it refuses: anything else, with {@link RequestError.Malformed}, after which it discards
 * all further input (the handler answers 400 and closes). A body over the limit gives
 * {@link RequestError.TooLarge}: with a Content-Length the body is skipped and the connection goes
 * on; a chunked one cannot be skipped safely, so the connection is done.
 *
 * <p>Header fields are kept (as strings, for {@link Request#header}) except on the paths given as
 * {@code bareHeaderPaths}, whose handlers need none: there only the framing and connection fields are
 * read, in place.
 *
 * <p>One instance per connection; not thread-safe (Netty calls it on the connection's event loop).
 */
public final class RequestDecoder extends ByteToMessageDecoder {

    private enum State { REQUEST_LINE, HEADERS, FIXED_BODY, SKIP_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, DONE }

    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] EXPECT = ascii("expect");
    private static final byte[] HOST = ascii("host");
    private static final byte[] HTTP_SCHEME = ascii("http://");
    private static final byte[] HTTPS_SCHEME = ascii("https://");
    private static final byte[] CHUNKED = ascii("chunked");
    private static final byte[] CLOSE = ascii("close");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    private static final byte[] CONTINUE_100 = ascii("100-continue");
    private static final ByteBuf CONTINUE_RESPONSE =
            Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(ascii("HTTP/1.1 100 Continue\r\n\r\n"))).asReadOnly();

    /** Longest chunk-size line accepted (size, extensions), bytes. */
    static final int MAX_CHUNK_LINE = 1024;

    private final int maxInitialLineBytes;
    private final int maxHeaderBytes;
    private final int maxBodyBytes;
    private final byte[][] bareHeaderPaths;
    private final long requestTimeoutNanos;
    private long partialSinceNanos;   // when the incomplete request now being read began to wait; 0: none
    private boolean checkScheduled;

    private State state = State.REQUEST_LINE;
    // the request being read
    private HttpMethod method;
    private byte[] target;
    private HttpVersion version;
    private boolean keepHeaders;
    private List<String> headers;
    private int headerBytes;
    private long contentLength;
    private boolean chunked;
    private boolean sawContentLength;
    private int hostFields;
    private boolean connectionClose;
    private boolean connectionKeepAlive;
    private boolean expectContinue;
    private boolean badExpectation;
    private long chunkLeft;
    private ByteBuf chunkedBody;

    /** A decoder without a request timeout (see the other constructor). */
    public RequestDecoder(int maxInitialLineBytes, int maxHeaderBytes, int maxBodyBytes, List<String> bareHeaderPaths) {
        this(maxInitialLineBytes, maxHeaderBytes, maxBodyBytes, bareHeaderPaths, 0);
    }

    /**
     * @param maxInitialLineBytes longest request line, bytes
     * @param maxHeaderBytes      most bytes of all header lines of a request together
     * @param maxBodyBytes        largest body, bytes
     * @param bareHeaderPaths     paths (without query) whose requests keep no header fields
     * @param requestTimeoutMs    a request whose first bytes came this many ms ago and which is still
     *                            incomplete gives {@link RequestError.Timeout}; 0 for no limit. Checked by
     *                            one timer per incomplete request, none for requests that arrive whole
     */
    public RequestDecoder(int maxInitialLineBytes, int maxHeaderBytes, int maxBodyBytes, List<String> bareHeaderPaths,
                          long requestTimeoutMs) {
        this.requestTimeoutNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        this.maxInitialLineBytes = maxInitialLineBytes;
        this.maxHeaderBytes = maxHeaderBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.bareHeaderPaths = bareHeaderPaths.stream().map(RequestDecoder::ascii).toArray(byte[][]::new);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            switch (state) {
                case REQUEST_LINE -> {
                    if (!readRequestLine(in, out)) {
                        return;
                    }
                }
                case HEADERS -> {
                    if (!readHeaders(ctx, in, out)) {
                        return;
                    }
                }
                case FIXED_BODY -> {
                    if (in.readableBytes() < contentLength) {
                        return;
                    }
                    if (contentLength == 0) {
                        emit(out, Request.empty(), 0, 0);
                    } else {
                        // the request holds the receive buffer itself (one more reference) and the body's
                        // place in it: no slice object per request. Netty's cumulator copies rather than
                        // compacts a buffer someone else still holds.
                        int at = in.readerIndex();
                        in.skipBytes((int) contentLength);
                        emit(out, in.retain(), at, (int) contentLength);
                    }
                }
                case SKIP_BODY -> {
                    int n = (int) Math.min(in.readableBytes(), contentLength);
                    in.skipBytes(n);
                    contentLength -= n;
                    if (contentLength > 0) {
                        return;
                    }
                    state = State.REQUEST_LINE;
                }
                case CHUNK_SIZE -> {
                    if (!readChunkSize(in, out)) {
                        return;
                    }
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(in.readableBytes(), chunkLeft);
                    if (n == 0) {
                        return;
                    }
                    if (chunkedBody == null) {
                        chunkedBody = ctx.alloc().buffer((int) Math.min(Math.max(chunkLeft, 256), maxBodyBytes));
                    }
                    chunkedBody.writeBytes(in, n);
                    chunkLeft -= n;
                    if (chunkLeft > 0) {
                        return;
                    }
                    state = State.CHUNK_END;
                }
                case CHUNK_END -> {
                    int eol = lineEnd(in, 2);
                    if (eol == -1) {
                        return;
                    }
                    if (eol != in.readerIndex()) {
                        fail(in, out, "chunk data longer than its size");
                        return;
                    }
                    skipLine(in, eol);
                    state = State.CHUNK_SIZE;
                }
                case TRAILERS -> {
                    if (!readTrailers(in, out)) {
                        return;
                    }
                }
                case DONE -> {
                    in.skipBytes(in.readableBytes());
                    return;
                }
            }
        }
    }

    // ---------------------------------------------------------------- request line

    private boolean readRequestLine(ByteBuf in, List<Object> out) {
        while (in.isReadable()) { // RFC 9112 §2.2: ignore empty lines before a request line
            byte b = in.getByte(in.readerIndex());
            if (b != '\r' && b != '\n') {
                break;
            }
            in.skipBytes(1);
        }
        if (!in.isReadable()) {
            return false;
        }
        int eol = lineEnd(in, maxInitialLineBytes);
        if (eol == -1) {
            return false;
        }
        if (eol == -2) {
            fail(in, out, "request line longer than " + maxInitialLineBytes + " bytes");
            return false;
        }
        int start = in.readerIndex();
        int sp1 = indexOf(in, start, eol, (byte) ' ');
        int sp2 = sp1 < 0 ? -1 : indexOf(in, sp1 + 1, eol, (byte) ' ');
        if (sp1 <= start || sp2 <= sp1 + 1 || sp2 + 1 >= eol) {
            fail(in, out, "malformed request line");
            return false;
        }
        HttpMethod m = method(in, start, sp1);
        HttpVersion v = version(in, sp2 + 1, eol);
        if (m == null || v == null || !visibleAscii(in, sp1 + 1, sp2)) {
            fail(in, out, "malformed request line");
            return false;
        }
        method = m;
        version = v;
        int from = originFormStart(in, sp1 + 1, sp2);
        if (from < 0) {
            fail(in, out, "absolute-form target without a host");
            return false;
        }
        // an absolute-form target without a path has the origin form "/" (RFC 9112 §3.2.1)
        int slash = from == sp2 || in.getByte(from) == '?' ? 1 : 0;
        target = new byte[slash + sp2 - from];
        target[0] = '/';
        for (int i = slash; i < target.length; i++) { // byte by byte: a bulk getBytes duplicates a ByteBuffer
            target[i] = in.getByte(from - slash + i);
        }
        keepHeaders = !isBarePath(target);
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
        skipLine(in, eol);
        state = State.HEADERS;
        return true;
    }

    /**
     * Where the origin form of the request target in [from, to) begins: {@code from} itself unless the
     * target is in absolute form ({@code http://} or {@code https://}, any case, then an authority), which a
     * server must accept (RFC 9112 §3.2.2) and whose authority it ignores here, as it ignores Host; then the
     * index just past the authority (its path, its query, or {@code to}). -1 if the authority is empty,
     * which RFC 9110 §4.2.1 makes invalid.
     */
    private static int originFormStart(ByteBuf in, int from, int to) {
        if (in.getByte(from) == '/') {
            return from; // origin form, nearly every request: no more to check
        }
        int at;
        if (startsWithIgnoreCase(in, from, to, HTTP_SCHEME)) {
            at = from + HTTP_SCHEME.length;
        } else if (startsWithIgnoreCase(in, from, to, HTTPS_SCHEME)) {
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

    private static boolean startsWithIgnoreCase(ByteBuf in, int from, int to, byte[] lowerPrefix) {
        return to - from >= lowerPrefix.length && equalsIgnoreCase(in, from, lowerPrefix.length, lowerPrefix);
    }

    private boolean isBarePath(byte[] t) {
        for (int i = 0; i < bareHeaderPaths.length; i++) {
            byte[] p = bareHeaderPaths[i];
            if (t.length >= p.length && java.util.Arrays.equals(t, 0, p.length, p, 0, p.length)
                    && (t.length == p.length || t[p.length] == '?')) {
                return true;
            }
        }
        return false;
    }

    private static HttpMethod method(ByteBuf in, int from, int to) {
        int len = to - from;
        byte first = in.getByte(from);
        if (len == 3 && first == 'G' && in.getByte(from + 1) == 'E' && in.getByte(from + 2) == 'T') {
            return HttpMethod.GET;
        }
        if (len == 3 && first == 'P' && in.getByte(from + 1) == 'U' && in.getByte(from + 2) == 'T') {
            return HttpMethod.PUT;
        }
        if (len == 6 && first == 'D' && in.getByte(from + 1) == 'E' && in.getByte(from + 2) == 'L'
                && in.getByte(from + 3) == 'E' && in.getByte(from + 4) == 'T' && in.getByte(from + 5) == 'E') {
            return HttpMethod.DELETE;
        }
        for (int i = from; i < to; i++) {
            if (!isTokenChar(in.getByte(i))) {
                return null;
            }
        }
        return HttpMethod.valueOf(in.toString(from, len, StandardCharsets.US_ASCII));
    }

    private static HttpVersion version(ByteBuf in, int from, int to) {
        if (to - from != 8 || in.getByte(from) != 'H' || in.getByte(from + 1) != 'T' || in.getByte(from + 2) != 'T'
                || in.getByte(from + 3) != 'P' || in.getByte(from + 4) != '/' || in.getByte(from + 5) != '1'
                || in.getByte(from + 6) != '.') {
            return null;
        }
        byte minor = in.getByte(from + 7);
        return minor == '1' ? HttpVersion.HTTP_1_1 : minor == '0' ? HttpVersion.HTTP_1_0 : null;
    }

    // ---------------------------------------------------------------- headers

    private boolean readHeaders(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            int eol = lineEnd(in, maxHeaderBytes - headerBytes + 2);
            if (eol == -1) {
                return false;
            }
            if (eol == -2) {
                fail(in, out, "header fields longer than " + maxHeaderBytes + " bytes");
                return false;
            }
            int start = in.readerIndex();
            if (eol == start) { // the empty line: end of the header section
                skipLine(in, eol);
                return headersDone(ctx, in, out);
            }
            headerBytes += eol - start + 2;
            if (!headerField(in, start, eol)) {
                fail(in, out, "malformed header field");
                return false;
            }
            skipLine(in, eol);
        }
    }

    /** Reads one field line [start, eol); false if malformed. */
    private boolean headerField(ByteBuf in, int start, int eol) {
        int colon = indexOf(in, start, eol, (byte) ':');
        if (colon <= start) {
            return false;
        }
        for (int i = start; i < colon; i++) {
            if (!isTokenChar(in.getByte(i))) {
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
            long n = parseDecimal(in, vs, ve);
            if (n < 0 || (sawContentLength && n != contentLength)) {
                return false;
            }
            sawContentLength = true;
            contentLength = n;
        } else if (equalsIgnoreCase(in, start, nameLen, TRANSFER_ENCODING)) {
            if (!endsWithToken(in, vs, ve, CHUNKED)) {
                return false; // only chunked is supported; RFC 9112 §6.3 would make this a 501, 400 is safe
            }
            chunked = true;
        } else if (equalsIgnoreCase(in, start, nameLen, CONNECTION)) {
            connectionClose |= hasToken(in, vs, ve, CLOSE);
            connectionKeepAlive |= hasToken(in, vs, ve, KEEP_ALIVE);
        } else if (equalsIgnoreCase(in, start, nameLen, HOST)) {
            hostFields++;
        } else if (equalsIgnoreCase(in, start, nameLen, EXPECT)) {
            if (equalsIgnoreCase(in, vs, ve - vs, CONTINUE_100)) {
                expectContinue = true;
            } else {
                badExpectation = true;
            }
        }
        if (keepHeaders) {
            headers.add(in.toString(start, nameLen, StandardCharsets.US_ASCII));
            headers.add(in.toString(vs, ve - vs, StandardCharsets.ISO_8859_1));
        }
        return true;
    }

    private boolean headersDone(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (chunked && sawContentLength) {
            fail(in, out, "both Content-Length and Transfer-Encoding"); // request smuggling (RFC 9112 §6.1)
            return false;
        }
        if (chunked && version == HttpVersion.HTTP_1_0) {
            // RFC 9112 §6.1: HTTP/1.0 has no Transfer-Encoding, so the framing is faulty and the connection
            // must close; reading it as chunked would run whatever a client hid after the last chunk
            fail(in, out, "Transfer-Encoding in an HTTP/1.0 request");
            return false;
        }
        if (hostFields > 1 || (hostFields == 0 && version == HttpVersion.HTTP_1_1)) {
            // RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host and for any request with more than one
            fail(in, out, hostFields == 0 ? "no Host header field" : "more than one Host header field");
            return false;
        }
        boolean keepAlive = version == HttpVersion.HTTP_1_1 ? !connectionClose : connectionKeepAlive && !connectionClose;
        if (badExpectation) {
            out.add(new RequestError.UnsupportedExpectation(version, keepAlive && !chunked && contentLength == 0,
                    isHead()));
            if (chunked || contentLength > 0) {
                state = State.DONE; // the client may or may not send the body: the connection is done
            } else {
                state = State.REQUEST_LINE;
            }
            return state != State.DONE;
        }
        if (chunked) {
            sendContinue(ctx);
            state = State.CHUNK_SIZE;
            return true;
        }
        if (contentLength > maxBodyBytes) {
            // answer now, then skip the announced body so the connection can go on (a client that
            // expected 100-continue sends nothing more, and Connection: close ends it on our side)
            out.add(new RequestError.TooLarge(version, keepAlive && !expectContinue, isHead()));
            if (expectContinue) {
                state = State.DONE;
                return false;
            }
            state = State.SKIP_BODY;
            return true;
        }
        if (contentLength > 0) {
            sendContinue(ctx);
        }
        state = State.FIXED_BODY;
        return true;
    }

    private void sendContinue(ChannelHandlerContext ctx) {
        if (expectContinue && version == HttpVersion.HTTP_1_1) {
            ctx.writeAndFlush(CONTINUE_RESPONSE.duplicate());
        }
    }

    // ---------------------------------------------------------------- chunked body

    private boolean readChunkSize(ByteBuf in, List<Object> out) {
        int eol = lineEnd(in, MAX_CHUNK_LINE);
        if (eol == -1) {
            return false;
        }
        int start = in.readerIndex();
        int end = eol == -2 ? -1 : indexOf(in, start, eol, (byte) ';');
        end = end < 0 ? eol : end;
        long size = eol == -2 ? -1 : parseHex(in, start, end);
        if (size < 0) {
            fail(in, out, "malformed chunk size");
            return false;
        }
        skipLine(in, eol);
        if (size == 0) {
            state = State.TRAILERS;
            headerBytes = 0;
            return true;
        }
        long soFar = chunkedBody == null ? 0 : chunkedBody.readableBytes();
        if (soFar + size > maxBodyBytes) {
            releaseChunkedBody();
            out.add(new RequestError.TooLarge(version, false, isHead()));
            state = State.DONE;
            return false;
        }
        chunkLeft = size;
        state = State.CHUNK_DATA;
        return true;
    }

    private boolean readTrailers(ByteBuf in, List<Object> out) {
        while (true) {
            int eol = lineEnd(in, maxHeaderBytes - headerBytes + 2);
            if (eol == -1) {
                return false;
            }
            if (eol == -2) {
                fail(in, out, "trailer fields longer than " + maxHeaderBytes + " bytes");
                return false;
            }
            boolean last = eol == in.readerIndex();
            headerBytes += eol - in.readerIndex() + 2;
            skipLine(in, eol);
            if (last) {
                ByteBuf body = chunkedBody == null ? Request.empty() : chunkedBody;
                chunkedBody = null;
                emit(out, body, body.readerIndex(), body.readableBytes());
                return true;
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private void emit(List<Object> out, ByteBuf body, int bodyIndex, int bodyLength) {
        partialSinceNanos = 0;
        boolean keepAlive = version == HttpVersion.HTTP_1_1 ? !connectionClose : connectionKeepAlive && !connectionClose;
        out.add(new Request(method, target, version, keepAlive, headers, body, bodyIndex, bodyLength));
        method = null;
        target = null;
        headers = null;
        state = State.REQUEST_LINE;
    }

    /** Whether the request being read is a HEAD (false while its request line is not read). */
    private boolean isHead() {
        return state != State.REQUEST_LINE && method == HttpMethod.HEAD;
    }

    private void fail(ByteBuf in, List<Object> out, String reason) {
        releaseChunkedBody();
        in.skipBytes(in.readableBytes());
        out.add(new RequestError.Malformed(reason, isHead()));
        state = State.DONE;
    }

    private void releaseChunkedBody() {
        if (chunkedBody != null) {
            chunkedBody.release();
            chunkedBody = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseChunkedBody();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        super.channelReadComplete(ctx);
        if (requestTimeoutNanos > 0) {
            if (!midRequest()) {
                partialSinceNanos = 0;
            } else if (partialSinceNanos == 0) {
                partialSinceNanos = System.nanoTime();
                scheduleCheck(ctx, requestTimeoutNanos);
            }
        }
    }

    /** Whether part of a request has been read and the rest has not. */
    private boolean midRequest() {
        return switch (state) {
            case REQUEST_LINE -> internalBuffer().isReadable();
            case DONE -> false;
            default -> true;
        };
    }

    private void scheduleCheck(ChannelHandlerContext ctx, long delayNanos) {
        if (!checkScheduled) {
            checkScheduled = true;
            ctx.executor().schedule(() -> checkTimeout(ctx), delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /** On the event loop, when a timer set for an incomplete request fires. */
    private void checkTimeout(ChannelHandlerContext ctx) {
        checkScheduled = false;
        if (state == State.DONE || !ctx.channel().isActive() || partialSinceNanos == 0) {
            return;
        }
        long waited = System.nanoTime() - partialSinceNanos;
        if (waited < requestTimeoutNanos) { // another request began meanwhile: wait for its own deadline
            scheduleCheck(ctx, requestTimeoutNanos - waited);
            return;
        }
        boolean head = isHead();
        releaseChunkedBody();
        state = State.DONE;
        partialSinceNanos = 0;
        ctx.fireChannelRead(new RequestError.Timeout(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos),
                head));
    }

    /**
     * The index of the end of the line at the reader index (its CR, or its LF if bare), -1 if no line
     * end is within the readable bytes yet, -2 if none within {@code max} bytes.
     */
    private static int lineEnd(ByteBuf in, int max) {
        int start = in.readerIndex();
        int limit = Math.min(in.writerIndex(), start + Math.max(max, 0));
        int lf = in.indexOf(start, limit, (byte) '\n');
        if (lf < 0) {
            return in.writerIndex() - start >= max ? -2 : -1;
        }
        return lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
    }

    /** Moves the reader index past the line ending at {@code eol} (CRLF or LF). */
    private static void skipLine(ByteBuf in, int eol) {
        in.readerIndex(in.getByte(eol) == '\r' ? eol + 2 : eol + 1);
    }

    private static int indexOf(ByteBuf in, int from, int to, byte b) {
        return from >= to ? -1 : in.indexOf(from, to, b);
    }

    private static boolean visibleAscii(ByteBuf in, int from, int to) {
        for (int i = from; i < to; i++) {
            byte b = in.getByte(i);
            if (b <= 0x20 || b >= 0x7F) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9110 §5.6.2 tchar. */
    private static boolean isTokenChar(byte b) {
        if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')) {
            return true;
        }
        return switch (b) {
            case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~' -> true;
            default -> false;
        };
    }

    private static boolean isOws(byte b) {
        return b == ' ' || b == '\t';
    }

    private static boolean equalsIgnoreCase(ByteBuf in, int from, int len, byte[] lower) {
        if (len != lower.length) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            byte b = in.getByte(from + i);
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != lower[i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether the comma-separated list in [from, to) holds {@code token} (case-insensitive). */
    private static boolean hasToken(ByteBuf in, int from, int to, byte[] token) {
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
    private static boolean endsWithToken(ByteBuf in, int from, int to, byte[] token) {
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
    private static long parseDecimal(ByteBuf in, int from, int to) {
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
    private static long parseHex(ByteBuf in, int from, int to) {
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

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
