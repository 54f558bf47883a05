package io.ringbase.api;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A thread-safe in-memory {@link StorageEngine} for tests: newest version wins per key
 * ({@link Entry#compareNewness}), keys in {@link Keys#ORDER}, scans honour {@code liveOnly} at the wall
 * clock of each step. Subclasses override methods to block or fail.
 */
public class InMemoryEngine implements StorageEngine {

    private final ConcurrentSkipListMap<byte[], Entry> entries = new ConcurrentSkipListMap<>(Keys.ORDER);

    @Override
    public void apply(Entry entry) throws IOException {
        entries.merge(entry.key(), entry, Entry::newer);
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        return entries.get(key);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) {
        NavigableMap<byte[], Entry> range =
                end == null ? entries.tailMap(start, true) : entries.subMap(start, true, end, false);
        Iterator<Entry> all = range.values().iterator();
        return new CloseableIterator<>() {
            private Entry next;

            @Override
            public boolean hasNext() {
                while (next == null && all.hasNext()) {
                    Entry e = all.next();
                    if (!liveOnly || e.isLive(System.currentTimeMillis())) {
                        next = e;
                    }
                }
                return next != null;
            }

            @Override
            public Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Entry e = next;
                next = null;
                return e;
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
}
