package io.ringbase.kv;

import io.ringbase.storage.Entry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * An asynchronous, pull-based stream of live entries in {@link io.ringbase.storage.Keys#ORDER}, one
 * batch at a time: what a range response is written from.
 *
 * <p><b>Contract.</b> At most one {@link #nextBatch} is outstanding: the caller asks for the next
 * batch only after the previous future has completed, and that completion happens-before the next
 * call. Every entry is live (a value, not expired when it was produced) and each key appears once,
 * in strictly increasing order across batches. An empty list means the stream has ended; a future
 * that completes exceptionally means it broke and must not be read further (a reader that stops
 * there would otherwise hand out a silently truncated range). {@link #close} releases what the
 * source holds; the caller calls it exactly once, when no batch is outstanding.
 */
public interface EntryBatchSource extends AutoCloseable {

    /**
     * The next entries: at least one unless the stream has ended, and no more after the entry that
     * takes the batch's {@link #sizeOf size} to {@code maxBytes} or beyond.
     *
     * @param maxBytes the batch budget, positive
     * @return the batch; empty at the end; exceptionally completed if the stream broke
     */
    CompletableFuture<List<Entry>> nextBatch(int maxBytes);

    /**
     * The key a next request should start from if this source stopped before the end of its range (a
     * page of {@code limit} entries, {@link LimitedBatchSource}), asked once the stream has ended; default
     * {@code null}: it ran to the end of the range.
     */
    default byte @Nullable [] resumeKey() {
        return null;
    }

    /** Releases the source (an engine iterator, buffered pages). Does not throw. */
    @Override
    void close();

    /** The size a batch budget counts for {@code e}: its key, one separator byte and its value. */
    static int sizeOf(Entry e) {
        return e.key().length + 1 + (e.value() == null ? 0 : e.value().length);
    }
}
