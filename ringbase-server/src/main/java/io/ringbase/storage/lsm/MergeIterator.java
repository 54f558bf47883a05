package io.ringbase.storage.lsm;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;

/**
 * A k-way merge of sorted entry streams (memtables and SSTables) into one stream with one entry per
 * key: the newest by {@link Entry#compareNewness}, whichever source holds it.
 *
 * <p>Each source must be sorted by {@link Keys#ORDER} with at most one entry per key. The merge pulls
 * lazily, one entry ahead per source, so its memory use is independent of the range size. Optionally
 * it hides entries that are not live (tombstones and entries expired at the time of each step).
 *
 * <p>Not thread-safe. Closing it closes every source.
 */
public final class MergeIterator implements CloseableIterator<Entry> {

    private final PriorityQueue<Source> heap;
    private final List<CloseableIterator<Entry>> sources;
    private final LongSupplier wallClockMs;
    private final boolean liveOnly;
    private Entry next;

    /**
     * @param sources     sorted sources; the merge owns and closes them, also when this constructor throws
     * @param liveOnly    skip tombstones and expired entries
     * @param wallClockMs current Unix epoch ms, consulted for expiry when {@code liveOnly}
     * @throws java.io.UncheckedIOException if a source fails reading its first entry (damage, EIO); every
     *                                      source is closed then
     */
    public MergeIterator(List<? extends CloseableIterator<Entry>> sources, boolean liveOnly, LongSupplier wallClockMs) {
        this.sources = new ArrayList<>(sources);
        this.liveOnly = liveOnly;
        this.wallClockMs = wallClockMs;
        this.heap =
                new PriorityQueue<>(Math.max(1, sources.size()), (a, b) -> Keys.compare(a.head.key(), b.head.key()));
        try {
            for (CloseableIterator<Entry> s : sources) {
                if (s.hasNext()) {
                    heap.add(new Source(s, s.next()));
                }
            }
            advance();
        } catch (RuntimeException | Error e) {
            // nobody else can close what a constructor that throws was given: a source may pin a view
            closeAll(e);
            throw e;
        }
    }

    /**
     * Closes every source of {@code sources} (whatever each throws), then closes the merge with them:
     * for a caller whose own opening of the sources failed midway, as this constructor does.
     *
     * @param failure the failure being thrown; what a close throws is added to it as suppressed
     */
    static void closeAll(List<? extends CloseableIterator<Entry>> sources, Throwable failure) {
        for (CloseableIterator<Entry> s : sources) {
            try {
                s.close();
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
            }
        }
    }

    private void closeAll(Throwable failure) {
        closeAll(sources, failure);
        heap.clear();
        next = null;
    }

    private void advance() {
        next = null;
        while (!heap.isEmpty()) {
            Source top = heap.poll();
            Entry best = top.head;
            pushNext(top);
            while (!heap.isEmpty() && Keys.compare(heap.peek().head.key(), best.key()) == 0) {
                Source same = heap.poll();
                best = Entry.newer(best, same.head);
                pushNext(same);
            }
            if (!liveOnly || best.isLive(wallClockMs.getAsLong())) {
                next = best;
                return;
            }
        }
    }

    private void pushNext(Source s) {
        if (s.it.hasNext()) {
            Entry e = s.it.next();
            if (Keys.compare(e.key(), s.head.key()) <= 0) {
                throw new IllegalStateException("source out of order at key " + Keys.toDisplay(e.key()));
            }
            s.head = e;
            heap.add(s);
        }
    }

    @Override
    public boolean hasNext() {
        return next != null;
    }

    @Override
    public Entry next() {
        if (next == null) {
            throw new NoSuchElementException();
        }
        Entry e = next;
        advance();
        return e;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (CloseableIterator<Entry> s : sources) {
            try {
                s.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        heap.clear();
        next = null;
        if (failure != null) {
            throw failure;
        }
    }

    private static final class Source {
        final CloseableIterator<Entry> it;
        Entry head;

        Source(CloseableIterator<Entry> it, Entry head) {
            this.it = it;
            this.head = head;
        }
    }
}
