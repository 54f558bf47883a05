package io.ringbase.kv;

import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An {@link EntryBatchSource} over this node's own engine: adapts a live-only
 * {@link io.ringbase.storage.StorageEngine#scan} iterator. Each {@link #nextBatch} reads its batch
 * synchronously on the calling thread (it may touch disk, so that must be a worker, never an event
 * loop) and returns an already completed future. Serves {@code local=true} and the single-node path.
 */
public final class LocalBatchSource implements EntryBatchSource {

    private final CloseableIterator<Entry> entries;
    private boolean closed;

    /** @param entries a live-only scan (tombstones and expired entries already skipped); owned, closed by {@link #close} */
    public LocalBatchSource(CloseableIterator<Entry> entries) {
        this.entries = entries;
    }

    /** A source with no entries. */
    public static LocalBatchSource empty() {
        return new LocalBatchSource(CloseableIterator.of(Collections.emptyIterator()));
    }

    @Override
    public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("source is closed"));
        }
        try {
            List<Entry> batch = new ArrayList<>();
            long bytes = 0;
            while (bytes < maxBytes && entries.hasNext()) {
                Entry e = entries.next();
                batch.add(e);
                bytes += EntryBatchSource.sizeOf(e);
            }
            return CompletableFuture.completedFuture(batch);
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            entries.close();
        }
    }
}
