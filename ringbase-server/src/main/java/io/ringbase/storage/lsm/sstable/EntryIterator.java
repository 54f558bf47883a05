package io.ringbase.storage.lsm.sstable;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.NoSuchElementException;

/**
 * A table's range iterator, one entry decoded ahead (the shape of Guava's {@code AbstractIterator}): a
 * subclass says only how to fetch the next entry. Damage found while fetching, or a failed read, ends the
 * iteration and is thrown from {@link #hasNext()}/{@link #next()} as an {@link UncheckedIOException} wrapping
 * the {@link CorruptionException} or {@link IOException}. One thread at a time.
 */
abstract class EntryIterator implements StorageEngine.CloseableIterator<Entry> {

    private Entry next;
    private boolean done;

    /**
     * The next entry in range, or {@code null} past the last one.
     *
     * @throws CorruptionException if what it reads is damaged
     * @throws IOException          if a read failed ({@code pread}: EIO...)
     */
    abstract Entry fetch() throws IOException;

    @Override
    public final boolean hasNext() {
        if (next != null) {
            return true;
        }
        if (done) {
            return false;
        }
        try {
            next = fetch();
        } catch (IOException e) {
            done = true;
            throw new UncheckedIOException(e);
        }
        if (next == null) {
            done = true;
            return false;
        }
        return true;
    }

    @Override
    public final Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Entry e = next;
        next = null;
        return e;
    }

    @Override
    public void close() {
        done = true;
        next = null;
    }
}
