package io.ringbase.storage.memtable;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * The in-memory sorted table of the newest entry per key that sits in front of the SSTables.
 *
 * <p>Concurrency: {@link #put}, {@link #get} and iteration are thread-safe and lock-free (a
 * {@link ConcurrentSkipListMap}). Iterators are weakly consistent: they see writes that race with them
 * or not, but never fail. Once the engine switches a memtable out for flushing, nobody writes to it.
 *
 * <p>Size accounting ({@link #sizeBytes()}) estimates the heap held by the entries plus the skip-list
 * node overhead per key; the engine switches memtables when it passes a threshold.
 */
public final class Memtable {

    /** Estimated heap bytes of one skip-list mapping (node, index levels amortized, boxed refs). */
    static final long PER_KEY_OVERHEAD = 64;

    private final ConcurrentSkipListMap<byte[], Entry> map = new ConcurrentSkipListMap<>(Keys.ORDER);
    private final AtomicLong bytes = new AtomicLong();
    private final LongAccumulator maxVersion = new LongAccumulator(Math::max, Long.MIN_VALUE);

    /**
     * Stores {@code entry} unless the memtable already holds a newer version of its key
     * ({@link Entry#compareNewness}).
     */
    public void put(Entry entry) {
        byte[] key = entry.key();
        while (true) {
            Entry old = map.putIfAbsent(key, entry);
            if (old == null) {
                bytes.addAndGet(entry.heapSize() + PER_KEY_OVERHEAD);
                break;
            }
            if (Entry.compareNewness(entry, old) <= 0) {
                break;
            }
            if (map.replace(key, old, entry)) {
                bytes.addAndGet(entry.heapSize() - old.heapSize());
                break;
            }
        }
        maxVersion.accumulate(entry.version());
    }

    /** The entry for {@code key} (possibly a tombstone or expired), or {@code null}. */
    public Entry get(byte[] key) {
        return map.get(key);
    }

    /**
     * Entries with {@code start <= key < end} in key order; {@code end == null} means no upper bound,
     * {@code start == null} no lower bound.
     */
    public CloseableIterator<Entry> iterator(byte[] start, byte[] end) {
        NavigableMap<byte[], Entry> range;
        if (start == null && end == null) {
            range = map;
        } else if (start == null) {
            range = map.headMap(end, false);
        } else if (end == null) {
            range = map.tailMap(start, true);
        } else if (Keys.compare(start, end) >= 0) {
            range = java.util.Collections.emptyNavigableMap();
        } else {
            range = map.subMap(start, true, end, false);
        }
        return CloseableIterator.of(range.values().iterator());
    }

    /** Estimated heap bytes held, see the class comment. */
    public long sizeBytes() {
        return bytes.get();
    }

    /** Number of keys. O(n): for flushing and tests, not the request path. */
    public int count() {
        return map.size();
    }

    public boolean isEmpty() {
        return map.isEmpty();
    }

    /** Largest version put so far, or {@link Long#MIN_VALUE} if empty. */
    public long maxVersion() {
        return maxVersion.get();
    }
}
