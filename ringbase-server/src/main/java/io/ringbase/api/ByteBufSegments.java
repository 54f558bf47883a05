package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.lang.foreign.MemorySegment;

/**
 * {@link MemorySegment} views of Netty buffers, so that the storage engine (which speaks
 * {@code MemorySegment}, not Netty) reads a request body or fills a response body in place: a PUT's
 * value goes from the socket buffer to the WAL and the memtable, a GET's value from the memtable or
 * the mapped SSTable to the socket buffer, with no array in between.
 *
 * <p>A view is valid only while the buffer is neither released nor reallocated; callers use it within
 * one call and keep no reference. Direct buffers (Netty's pooled default) are viewed at their memory
 * address, which needs native access ({@code --enable-native-access=ALL-UNNAMED}, as the launcher
 * and the tests run); heap buffers through their array; a composite buffer of several components,
 * which has neither, is copied once.
 */
final class ByteBufSegments {

    /**
     * All of the process's address space, for copies to a known, live native address (a direct
     * buffer's, just made writable for that many bytes). Made once; needs native access.
     */
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private ByteBufSegments() {}

    /** A view of {@code buf}'s readable bytes. */
    static MemorySegment readable(ByteBuf buf) {
        return of(buf, buf.readerIndex(), buf.readableBytes());
    }

    /** A view of {@code length} bytes of {@code buf} at {@code index} (not checked against its indexes). */
    static MemorySegment of(ByteBuf buf, int index, int length) {
        if (buf.hasMemoryAddress()) {
            return MemorySegment.ofAddress(buf.memoryAddress() + index).reinterpret(length);
        }
        if (buf.hasArray()) {
            return MemorySegment.ofArray(buf.array()).asSlice(buf.arrayOffset() + index, length);
        }
        if (buf.nioBufferCount() == 1) {
            return MemorySegment.ofBuffer(buf.nioBuffer(index, length));
        }
        return MemorySegment.ofArray(ByteBufUtil.getBytes(buf, index, length));
    }

    /**
     * Appends {@code length} bytes at {@code offset} of {@code src} to {@code dst} (growing it if
     * needed): one copy.
     */
    static void write(ByteBuf dst, MemorySegment src, long offset, int length) {
        dst.ensureWritable(length);
        int at = dst.writerIndex();
        if (dst.hasMemoryAddress()) {
            // into the buffer's memory by address, through one segment over the whole address space:
            // no view object per response (the view of a GET's response buffer was a fifth of its bytes)
            MemorySegment.copy(src, offset, EVERYTHING, dst.memoryAddress() + at, length);
        } else if (dst.hasArray()) {
            MemorySegment.copy(src, offset, of(dst, at, length), 0, length);
        } else {
            dst.setBytes(at, src.asSlice(offset, length).asByteBuffer());
        }
        dst.writerIndex(at + length);
    }
}
