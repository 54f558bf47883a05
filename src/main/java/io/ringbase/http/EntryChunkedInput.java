package io.ringbase.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;

/**
 * A range response body pulled lazily from a scan: each {@link #readChunk} takes one entry from the
 * iterator and returns {@code key + '\n' + value} in one buffer. Wrapped in an
 * {@link io.netty.handler.codec.http.HttpChunkedInput} each buffer becomes one HTTP chunk.
 *
 * <p>{@link io.netty.handler.stream.ChunkedWriteHandler} calls {@code readChunk} on the event loop only
 * while the channel is writable, so at most about one entry plus the channel's high water mark is
 * buffered ahead of the client. It closes this input at the end, on error and when the channel closes;
 * {@link #close} is idempotent and closes the iterator once. Not thread-safe (event-loop use only, apart
 * from {@code close}).
 */
final class EntryChunkedInput implements ChunkedInput<ByteBuf> {

    private static final byte SEPARATOR = '\n';

    private final CloseableIterator<Entry> entries;
    private volatile boolean closed;
    private long progress;

    EntryChunkedInput(CloseableIterator<Entry> entries) {
        this.entries = entries;
    }

    @Override
    public boolean isEndOfInput() {
        return closed || !entries.hasNext();
    }

    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) {
        if (isEndOfInput()) {
            return null;
        }
        Entry e = entries.next();
        byte[] key = e.key();
        byte[] value = e.value();
        int size = key.length + 1 + value.length;
        ByteBuf buf = allocator.buffer(size);
        buf.writeBytes(key).writeByte(SEPARATOR).writeBytes(value);
        progress += size;
        return buf;
    }

    @Override
    public long length() {
        return -1;
    }

    @Override
    public long progress() {
        return progress;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            entries.close();
        }
    }
}
