package io.ringbase.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.util.concurrent.EventExecutor;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A range response body pulled lazily from a scan, one {@code key + '\n' + value} buffer per entry
 * (wrapped in an {@link io.netty.handler.codec.http.HttpChunkedInput}, each becomes one HTTP chunk).
 *
 * <p><b>Threads.</b> The scan itself (merging, reading mapped SSTables, possibly page faults) runs on
 * the request worker pool, never on the event loop: a short worker task prefetches the next batch
 * of about {@value #BATCH_BYTES} bytes (or one larger entry) into {@link #ready}, then asks the
 * {@link io.netty.handler.stream.ChunkedWriteHandler} to resume. The event loop's
 * {@link #readChunk} only hands out prefetched buffers; when none is ready it returns {@code null}
 * (the handler then waits for the resume) and starts a refill. A slow client therefore holds no
 * worker: between refills the scan just sits in its iterator.
 *
 * <p><b>Memory.</b> At most one batch is prefetched ahead of what the channel has taken, and the
 * handler takes chunks only while the channel is writable, so the server buffers about one batch
 * plus the channel's high water mark ahead of the client.
 *
 * <p>{@link #close} is idempotent, releases prefetched buffers and closes the iterator exactly once,
 * after any running refill.
 */
final class EntryChunkedInput implements ChunkedInput<ByteBuf> {

    /** A refill stops once it has prefetched this many bytes (64 KiB). */
    static final int BATCH_BYTES = 64 * 1024;
    private static final byte SEPARATOR = '\n';
    private static final long RETRY_MS = 5;

    private final CloseableIterator<Entry> entries;
    private final ExecutorService workers;
    private final ByteBufAllocator allocator;
    private EventExecutor eventLoop;
    private Runnable resume;

    // Guarded by this.
    private final ArrayDeque<ByteBuf> ready = new ArrayDeque<>();
    private boolean refilling;
    private boolean exhausted;
    private boolean closed;
    private boolean iteratorClosed;
    private Throwable failure;
    private long progress;

    /**
     * @param entries   the scan; owned (closed) by this input
     * @param workers   the request worker pool that runs the refills
     * @param allocator allocates the chunk buffers (thread-safe)
     */
    EntryChunkedInput(CloseableIterator<Entry> entries, ExecutorService workers, ByteBufAllocator allocator) {
        this.entries = entries;
        this.workers = workers;
        this.allocator = allocator;
    }

    /**
     * Fetches the first batch on the calling (worker) thread, so the response starts with data.
     */
    void prefetch() {
        synchronized (this) {
            refilling = true;
        }
        refill();
    }

    /**
     * Binds the input to its channel once the response is being written: refills wake the chunked
     * writer through {@code resume}, and retries after a full worker queue run on {@code eventLoop}.
     */
    synchronized void bind(EventExecutor eventLoop, Runnable resume) {
        this.eventLoop = eventLoop;
        this.resume = resume;
    }

    @Override
    public synchronized boolean isEndOfInput() throws IOException {
        throwIfFailed();
        return closed || (exhausted && ready.isEmpty());
    }

    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator unused) throws IOException {
        ByteBuf chunk;
        synchronized (this) {
            throwIfFailed();
            if (closed) {
                return null;
            }
            chunk = ready.poll();
            if (chunk != null) {
                progress += chunk.readableBytes();
            }
            if (!ready.isEmpty() || exhausted || refilling) {
                return chunk;
            }
            refilling = true;
        }
        scheduleRefill();
        return chunk; // null makes the chunked writer wait for the refill's resume
    }

    private void throwIfFailed() throws IOException {
        if (failure != null) {
            throw failure instanceof IOException io ? io : new IOException("range scan failed", failure);
        }
    }

    /** Runs a refill on a worker; {@link #refilling} is already set by the caller. */
    private void scheduleRefill() {
        try {
            workers.execute(this::refill);
        } catch (RejectedExecutionException e) {
            if (workers.isShutdown()) {
                fail(new IOException("server is stopping", e));
            } else {
                // Pool saturated: try again shortly rather than queue without bound or block the loop.
                EventExecutor loop;
                synchronized (this) {
                    loop = eventLoop;
                }
                if (loop == null) {
                    fail(new IOException("request workers are saturated", e));
                } else {
                    loop.schedule(this::scheduleRefill, RETRY_MS, TimeUnit.MILLISECONDS);
                }
            }
        }
    }

    /** On a worker: reads the next batch from the scan. */
    private void refill() {
        List<ByteBuf> batch = new ArrayList<>();
        boolean end;
        try {
            long bytes = 0;
            while (bytes < BATCH_BYTES && !isClosed() && entries.hasNext()) {
                Entry e = entries.next();
                byte[] key = e.key();
                byte[] value = e.value();
                int size = key.length + 1 + value.length;
                ByteBuf buf = allocator.buffer(size);
                buf.writeBytes(key).writeByte(SEPARATOR).writeBytes(value);
                batch.add(buf);
                bytes += size;
            }
            end = !isClosed() && !entries.hasNext();
        } catch (RuntimeException | Error e) {
            batch.forEach(ByteBuf::release);
            fail(e);
            return;
        }
        Runnable wake;
        synchronized (this) {
            refilling = false;
            exhausted = end;
            if (closed) {
                batch.forEach(ByteBuf::release);
                closeIteratorLocked();
                return;
            }
            ready.addAll(batch);
            wake = resume;
        }
        if (wake != null) {
            wake.run(); // ChunkedWriteHandler.resumeTransfer hops to the event loop itself
        }
    }

    private void fail(Throwable t) {
        Runnable wake;
        synchronized (this) {
            refilling = false;
            if (failure == null) {
                failure = t;
            }
            wake = resume;
            if (closed) {
                closeIteratorLocked();
            }
        }
        if (wake != null) {
            wake.run();
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public long length() {
        return -1;
    }

    @Override
    public synchronized long progress() {
        return progress;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        ByteBuf b;
        while ((b = ready.poll()) != null) {
            b.release();
        }
        if (!refilling) {
            closeIteratorLocked(); // else the running refill closes it when it finishes
        }
    }

    private void closeIteratorLocked() {
        if (!iteratorClosed) {
            iteratorClosed = true;
            entries.close();
        }
    }
}
