package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import org.jspecify.annotations.Nullable;

/**
 * A request body in the chunked transfer coding (RFC 9112 §7.1), gathered into one buffer: the
 * chunk-size lines (extensions skipped), the chunk data, the line end after each chunk's data, and the
 * trailer section (skipped, within {@code maxHeaderBytes}). {@link RequestDecoder} calls the step its
 * state names; this class holds what the steps share.
 *
 * <p>One per decoder, reused request after request. It owns the body being gathered until
 * {@link #take()} hands it over; {@link #release()} frees it when the request is given up. Not
 * thread-safe (the connection's event loop).
 */
final class ChunkedBody {

    /** Longest chunk-size line accepted (size, extensions), bytes. */
    static final int MAX_CHUNK_LINE = 1024;

    /** {@link #readSize}: a chunk's size line was read; its data follows. */
    static final int DATA = 0;
    /** {@link #readSize}: the last chunk's size line (0) was read; the trailer section follows. */
    static final int LAST = 1;
    /** {@link #readDataEnd}, {@link #readTrailers}: the step is done. */
    static final int DONE = 2;
    /** A step needs bytes that have not arrived yet. */
    static final int NEED_MORE = 3;
    /** Not valid chunked coding. */
    static final int MALFORMED = 4;
    /** {@link #readSize}: the body would pass {@code maxBodyBytes}; what was gathered is released. */
    static final int TOO_LARGE = 5;
    /** {@link #readTrailers}: the trailer section passes {@code maxHeaderBytes}. */
    static final int TOO_LONG = 6;

    private final int maxBodyBytes;
    private final int maxHeaderBytes;
    private long chunkLeft;
    private @Nullable ByteBuf body;
    private int trailerBytes;

    /**
     * @param maxBodyBytes   largest body, bytes
     * @param maxHeaderBytes most bytes of the trailer lines together
     */
    ChunkedBody(int maxBodyBytes, int maxHeaderBytes) {
        this.maxBodyBytes = maxBodyBytes;
        this.maxHeaderBytes = maxHeaderBytes;
    }

    /**
     * Reads a chunk-size line: {@link #DATA} (the chunk's data is next), {@link #LAST} (the trailer
     * section is next), {@link #NEED_MORE}, {@link #MALFORMED} or {@link #TOO_LARGE}.
     */
    int readSize(ByteBuf in) {
        int eol = WireBytes.lineEnd(in, MAX_CHUNK_LINE);
        if (eol == -1) {
            return NEED_MORE;
        }
        int start = in.readerIndex();
        int end = eol == -2 ? -1 : WireBytes.indexOf(in, start, eol, (byte) ';');
        end = end < 0 ? eol : end;
        long size = eol == -2 ? -1 : WireBytes.parseHex(in, start, end);
        if (size < 0) {
            return MALFORMED;
        }
        WireBytes.skipLine(in, eol);
        if (size == 0) {
            trailerBytes = 0;
            return LAST;
        }
        long soFar = body == null ? 0 : body.readableBytes();
        if (soFar + size > maxBodyBytes) {
            release();
            return TOO_LARGE;
        }
        chunkLeft = size;
        return DATA;
    }

    /** Copies the chunk's data that has arrived into the body; whether the chunk is complete. */
    boolean readData(ChannelHandlerContext ctx, ByteBuf in) {
        int n = (int) Math.min(in.readableBytes(), chunkLeft);
        if (n == 0) {
            return false;
        }
        if (body == null) {
            body = ctx.alloc().buffer((int) Math.min(Math.max(chunkLeft, 256), maxBodyBytes));
        }
        body.writeBytes(in, n);
        chunkLeft -= n;
        return chunkLeft == 0;
    }

    /**
     * Reads the line end after a chunk's data: {@link #DONE}, {@link #NEED_MORE}, or
     * {@link #MALFORMED} if more data comes first.
     */
    static int readDataEnd(ByteBuf in) {
        int eol = WireBytes.lineEnd(in, 2);
        if (eol == -1) {
            return NEED_MORE;
        }
        if (eol != in.readerIndex()) {
            return MALFORMED;
        }
        WireBytes.skipLine(in, eol);
        return DONE;
    }

    /**
     * Skips the trailer lines up to and including the empty line that ends the body: {@link #DONE} (the
     * body is complete, for {@link #take()}), {@link #NEED_MORE} or {@link #TOO_LONG}.
     */
    int readTrailers(ByteBuf in) {
        while (true) {
            int eol = WireBytes.lineEnd(in, maxHeaderBytes - trailerBytes + 2);
            if (eol == -1) {
                return NEED_MORE;
            }
            if (eol == -2) {
                return TOO_LONG;
            }
            boolean last = eol == in.readerIndex();
            trailerBytes += eol - in.readerIndex() + 2;
            WireBytes.skipLine(in, eol);
            if (last) {
                return DONE;
            }
        }
    }

    /** Hands the gathered body over (empty if there was no data): the caller owns it. */
    ByteBuf take() {
        ByteBuf b = body == null ? Request.empty() : body;
        body = null;
        return b;
    }

    /** Frees the body being gathered, if any. */
    void release() {
        if (body != null) {
            body.release();
            body = null;
        }
    }
}
