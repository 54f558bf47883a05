package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.stream.ChunkedInput;
import io.netty.util.concurrent.EventExecutor;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A range response body pulled lazily from an {@link EntryBatchSource}, one buffer per entry framed as
 * its {@link RangeFormat} says ({@code key + '\n' + value} by default; a JSON line on request) (wrapped in an {@link io.netty.handler.codec.http.HttpChunkedInput}, each becomes
 * one HTTP chunk).
 *
 * <p><b>Threads.</b> The scan never runs on the event loop. A refill starts on the request worker
 * pool and asks the source for the next batch of about {@value #BATCH_BYTES} bytes (or one larger
 * entry): a local source reads it right there (merging, reading mapped SSTables, possibly page
 * faults); a cluster scan may complete the future later, on the thread that receives a replica's
 * page, and nothing waits for it. When the batch arrives it is framed into {@link #ready} and the
 * {@link io.netty.handler.stream.ChunkedWriteHandler} is asked to resume. The event loop's
 * {@link #readChunk} only hands out ready buffers; when none is ready it returns {@code null} (the
 * handler then waits for the resume) and starts a refill. A slow client therefore holds no worker:
 * between refills the scan just sits in its source. The end of the range is an empty batch.
 *
 * <p><b>Memory.</b> At most one batch is prefetched ahead of what the channel has taken, and the
 * handler takes chunks only while the channel is writable, so the server buffers about one batch
 * plus the channel's high water mark ahead of the client.
 *
 * <p><b>Failure.</b> A failed batch (a replica down mid-scan, a corrupt table) makes
 * {@link #readChunk} and {@link #isEndOfInput} throw an {@link IOException}, so the handler aborts the
 * response: the client sees a chunked body without its terminating chunk, never a short but
 * well-formed one.
 *
 * <p>{@link #close} is idempotent, releases prefetched buffers and closes the source exactly once,
 * after the batch in flight (if any) has arrived.
 */
final class EntryChunkedInput implements ChunkedInput<ByteBuf> {

    /** A refill stops once it has prefetched this many bytes (64 KiB). */
    static final int BATCH_BYTES = 64 * 1024;

    /**
     * The trailer of a full page ({@code limit}): the percent-encoded key the next page starts from
     * (the page's last key followed by a 0x00 byte), to be given as its {@code start} as it is.
     */
    static final String NEXT_START = "Ringbase-Next-Start";

    private static final long RETRY_MS = 5;

    private final EntryBatchSource source;
    private final RangeFormat format;
    private final boolean paged;
    private final LastHttpContent last; // its trailer is set, under this, before the end is reported
    private final ExecutorService workers;
    private final ByteBufAllocator allocator;
    private @Nullable EventExecutor eventLoop;
    private @Nullable Runnable resume;

    // Guarded by this.
    private final ArrayDeque<ByteBuf> ready = new ArrayDeque<>();
    private boolean refilling;
    private boolean exhausted;
    private boolean closed;
    private boolean sourceClosed;
    private @Nullable Throwable failure;
    private long progress;

    /**
     * @param source    the scan; owned (closed) by this input
     * @param format    how each entry is framed
     * @param paged     whether the source is one page of the range ({@code limit}): the end of the body
     *                  then carries the {@link #NEXT_START} trailer if the source says where the next starts
     * @param workers   the request worker pool that starts the refills
     * @param allocator allocates the chunk buffers (thread-safe)
     */
    EntryChunkedInput(
            EntryBatchSource source,
            RangeFormat format,
            boolean paged,
            ExecutorService workers,
            ByteBufAllocator allocator) {
        this.source = source;
        this.format = format;
        this.paged = paged;
        this.last = paged ? new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER) : LastHttpContent.EMPTY_LAST_CONTENT;
        this.workers = workers;
        this.allocator = allocator;
    }

    /** How each entry is framed. */
    RangeFormat format() {
        return format;
    }

    /** Whether the body is one page of the range ({@code limit}), which may end with a trailer. */
    boolean paged() {
        return paged;
    }

    /**
     * The end of the body, written after the last chunk; a full page's carries the {@link #NEXT_START}
     * trailer, set before {@link #isEndOfInput} first answers true.
     */
    LastHttpContent lastContent() {
        return last;
    }

    /**
     * Starts the first refill on the calling (worker) thread; a local source reads its batch right
     * here, so the response starts with data.
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
    @SuppressWarnings("deprecation") // ChunkedInput still declares it; ChunkedWriteHandler calls the other one
    public @Nullable ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
        return readChunk(ctx.alloc());
    }

    @Override
    public @Nullable ByteBuf readChunk(ByteBufAllocator unused) throws IOException {
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
                    var _ = loop.schedule(
                            this::scheduleRefill, RETRY_MS, TimeUnit.MILLISECONDS); // it handles its failures
                }
            }
        }
    }

    /**
     * On a worker: asks the source for the next batch. A local source reads it right here; a cluster
     * scan may complete later, on the thread that receives a replica's page. Nothing waits for it.
     */
    private void refill() {
        synchronized (this) {
            if (closed) {
                refilling = false;
                closeSourceLocked();
                return;
            }
        }
        CompletableFuture<List<Entry>> next;
        try {
            next = source.nextBatch(BATCH_BYTES);
        } catch (RuntimeException | Error e) {
            fail(e);
            return;
        }
        var _ = next.whenComplete(this::onBatch); // onBatch fails the input on any error of its own
    }

    /** When a batch has arrived (on any thread): frames it into chunk buffers for the event loop. */
    private void onBatch(List<Entry> entries, Throwable error) {
        if (error != null) {
            fail(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            return;
        }
        List<ByteBuf> batch = new ArrayList<>(entries.size());
        try {
            for (Entry e : entries) {
                byte[] key = e.key();
                byte[] value = e.bareValue(); // the client's bytes: a copy without the prefix only when typed
                if (value == null) {
                    throw new IllegalStateException("range source produced a tombstone for " + Keys.toDisplay(key));
                }
                ByteBuf buf = allocator.buffer(format.frameLength(key, value));
                batch.add(buf);
                format.encode(key, value, buf);
            }
        } catch (RuntimeException | Error e) {
            batch.forEach(ByteBuf::release);
            fail(e);
            return;
        }
        byte[] nextStart = entries.isEmpty() && paged ? source.resumeKey() : null;
        Runnable wake;
        synchronized (this) {
            refilling = false;
            exhausted = entries.isEmpty();
            if (nextStart != null) {
                last.trailingHeaders().set(NEXT_START, QueryString.encode(nextStart));
            }
            if (closed) {
                batch.forEach(ByteBuf::release);
                closeSourceLocked();
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
                closeSourceLocked();
            }
        }
        if (wake != null) {
            wake.run();
        }
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
            closeSourceLocked(); // else the refill in flight closes it when its batch arrives
        }
    }

    private void closeSourceLocked() {
        if (!sourceClosed) {
            sourceClosed = true;
            source.close();
        }
    }
}
