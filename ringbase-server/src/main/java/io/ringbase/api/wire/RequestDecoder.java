package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * <p>This class is the state machine and the request timeout; the parsing is done by
 * {@link RequestLine} (request line and target), {@link HeaderFields} (field lines and framing rules),
 * {@link ChunkedBody} (chunked coding) and {@link WireBytes} (bytes, lines, tokens, numbers).
 *
 * <p>One instance per connection; not thread-safe (Netty calls it on the connection's event loop).
 */
public final class RequestDecoder extends ByteToMessageDecoder {

    private enum State {
        REQUEST_LINE,
        HEADERS,
        FIXED_BODY,
        SKIP_BODY,
        CHUNK_SIZE,
        CHUNK_DATA,
        CHUNK_END,
        TRAILERS,
        DONE
    }

    private static final ByteBuf CONTINUE_RESPONSE = Unpooled.unreleasableBuffer(
                    Unpooled.wrappedBuffer(WireBytes.ascii("HTTP/1.1 100 Continue\r\n\r\n")))
            .asReadOnly();

    private final int maxInitialLineBytes;
    private final int maxHeaderBytes;
    private final int maxBodyBytes;
    private final byte[][] bareHeaderPaths;
    private final long requestTimeoutNanos;
    private long partialSinceNanos; // when the incomplete request now being read began to wait; 0: none
    private boolean checkScheduled;

    private State state = State.REQUEST_LINE;
    // the request being read
    private @Nullable HttpMethod method;
    private byte @Nullable [] target;
    private @Nullable HttpVersion version;
    private final HeaderFields fields;
    private final ChunkedBody chunks;

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
    public RequestDecoder(
            int maxInitialLineBytes,
            int maxHeaderBytes,
            int maxBodyBytes,
            List<String> bareHeaderPaths,
            long requestTimeoutMs) {
        this.requestTimeoutNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        this.maxInitialLineBytes = maxInitialLineBytes;
        this.maxHeaderBytes = maxHeaderBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.bareHeaderPaths = bareHeaderPaths.stream().map(WireBytes::ascii).toArray(byte[][]::new);
        this.fields = new HeaderFields(maxHeaderBytes);
        this.chunks = new ChunkedBody(maxBodyBytes, maxHeaderBytes);
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
                    long contentLength = fields.contentLength;
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
                    int n = (int) Math.min(in.readableBytes(), fields.contentLength);
                    in.skipBytes(n);
                    fields.contentLength -= n;
                    if (fields.contentLength > 0) {
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
                    if (!chunks.readData(ctx, in)) {
                        return;
                    }
                    state = State.CHUNK_END;
                }
                case CHUNK_END -> {
                    int r = ChunkedBody.readDataEnd(in);
                    if (r == ChunkedBody.NEED_MORE) {
                        return;
                    }
                    if (r == ChunkedBody.MALFORMED) {
                        fail(in, out, "chunk data longer than its size");
                        return;
                    }
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

    /**
     * Reads the request line; its parts are {@link RequestLine}'s. The line is walked here, target copy
     * included, which keeps this method too big for C2 to inline into {@link #decode}: inlined there, it
     * took the compilation past its node budget, leaving the byte reads of the line as calls.
     */
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
        int eol = WireBytes.lineEnd(in, maxInitialLineBytes);
        if (eol == -1) {
            return false;
        }
        if (eol == -2) {
            fail(in, out, "request line longer than " + maxInitialLineBytes + " bytes");
            return false;
        }
        int start = in.readerIndex();
        int sp1 = WireBytes.indexOf(in, start, eol, (byte) ' ');
        int sp2 = sp1 < 0 ? -1 : WireBytes.indexOf(in, sp1 + 1, eol, (byte) ' ');
        if (sp1 <= start || sp2 <= sp1 + 1 || sp2 + 1 >= eol) {
            fail(in, out, "malformed request line");
            return false;
        }
        HttpMethod m = RequestLine.method(in, start, sp1);
        HttpVersion v = RequestLine.version(in, sp2 + 1, eol);
        if (m == null || v == null || !WireBytes.visibleAscii(in, sp1 + 1, sp2)) {
            fail(in, out, "malformed request line");
            return false;
        }
        method = m;
        version = v;
        int from = RequestLine.originFormStart(in, sp1 + 1, sp2);
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
        fields.reset(!RequestLine.isBarePath(target, bareHeaderPaths));
        WireBytes.skipLine(in, eol);
        state = State.HEADERS;
        return true;
    }

    private boolean readHeaders(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (fields.read(in)) {
            case HeaderFields.END -> {
                return headersDone(ctx, in, out);
            }
            case HeaderFields.NEED_MORE -> {
                return false;
            }
            case HeaderFields.TOO_LONG -> {
                fail(in, out, "header fields longer than " + maxHeaderBytes + " bytes");
                return false;
            }
            default -> {
                fail(in, out, "malformed header field");
                return false;
            }
        }
    }

    private boolean headersDone(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        String framingError = fields.framingError(readVersion());
        if (framingError != null) {
            fail(in, out, framingError);
            return false;
        }
        boolean keepAlive = fields.keepAlive(readVersion());
        long contentLength = fields.contentLength;
        if (fields.badExpectation) {
            out.add(new RequestError.UnsupportedExpectation(
                    readVersion(), keepAlive && !fields.chunked && contentLength == 0, isHead()));
            if (fields.chunked || contentLength > 0) {
                state = State.DONE; // the client may or may not send the body: the connection is done
            } else {
                state = State.REQUEST_LINE;
            }
            return state != State.DONE;
        }
        if (fields.chunked) {
            sendContinue(ctx);
            state = State.CHUNK_SIZE;
            return true;
        }
        if (contentLength > maxBodyBytes) {
            // answer now, then skip the announced body so the connection can go on (a client that
            // expected 100-continue sends nothing more, and Connection: close ends it on our side)
            out.add(new RequestError.TooLarge(readVersion(), keepAlive && !fields.expectContinue, isHead()));
            if (fields.expectContinue) {
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
        if (fields.expectContinue && HttpVersion.HTTP_1_1.equals(version)) {
            var _ = ctx.writeAndFlush(CONTINUE_RESPONSE.duplicate());
        }
    }

    private boolean readChunkSize(ByteBuf in, List<Object> out) {
        switch (chunks.readSize(in)) {
            case ChunkedBody.DATA -> {
                state = State.CHUNK_DATA;
                return true;
            }
            case ChunkedBody.LAST -> {
                state = State.TRAILERS;
                return true;
            }
            case ChunkedBody.NEED_MORE -> {
                return false;
            }
            case ChunkedBody.TOO_LARGE -> {
                out.add(new RequestError.TooLarge(readVersion(), false, isHead()));
                state = State.DONE;
                return false;
            }
            default -> {
                fail(in, out, "malformed chunk size");
                return false;
            }
        }
    }

    private boolean readTrailers(ByteBuf in, List<Object> out) {
        switch (chunks.readTrailers(in)) {
            case ChunkedBody.DONE -> {
                ByteBuf body = chunks.take();
                emit(out, body, body.readerIndex(), body.readableBytes());
                return true;
            }
            case ChunkedBody.NEED_MORE -> {
                return false;
            }
            default -> {
                fail(in, out, "trailer fields longer than " + maxHeaderBytes + " bytes");
                return false;
            }
        }
    }

    private void emit(List<Object> out, ByteBuf body, int bodyIndex, int bodyLength) {
        partialSinceNanos = 0;
        boolean keepAlive = fields.keepAlive(readVersion());
        out.add(new Request(
                readMethod(),
                readTarget(),
                readVersion(),
                keepAlive,
                fields.takeHeaders(),
                fields.authorization,
                body,
                bodyIndex,
                bodyLength));
        method = null;
        target = null;
        state = State.REQUEST_LINE;
    }

    // The request line's parts, set once it is read: only the states after REQUEST_LINE use them
    private HttpVersion readVersion() {
        return Objects.requireNonNull(version, "no request line read");
    }

    private HttpMethod readMethod() {
        return Objects.requireNonNull(method, "no request line read");
    }

    private byte[] readTarget() {
        return Objects.requireNonNull(target, "no request line read");
    }

    /** Whether the request being read is a HEAD (false while its request line is not read). */
    private boolean isHead() {
        return state != State.REQUEST_LINE && HttpMethod.HEAD.equals(method);
    }

    private void fail(ByteBuf in, List<Object> out, String reason) {
        chunks.release();
        in.skipBytes(in.readableBytes());
        out.add(new RequestError.Malformed(reason, isHead()));
        state = State.DONE;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        chunks.release();
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
            var _ = ctx.executor()
                    .schedule(() -> checkTimeout(ctx), delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
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
        chunks.release();
        state = State.DONE;
        partialSinceNanos = 0;
        ctx.fireChannelRead(new RequestError.Timeout(
                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos), head));
    }
}
