package io.ringbase.storage.lsm.sstable;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The budget of native memory, shared by every SSTable of an engine, into which a table opening copies
 * its index and Bloom filter sections, so that a lookup finds its block, and a missing key its answer,
 * without reading the device once the page cache has lost the table (after a restart, or under memory
 * pressure). RocksDB keeps index and filter blocks in its table readers' memory the same way by default
 * ({@code cache_index_and_filter_blocks=false}), and Cassandra its Bloom filters off the heap; unlike
 * them, the memory here is bounded: a table that does not fit reads these sections through its mapping,
 * as every table did before, and one WARN line names the first such table. Thread-safe.
 */
public final class PinnedSections {

    /** A budget of nothing: every table reads its index and filter through its mapping. */
    public static final PinnedSections NONE = new PinnedSections(0);

    private static final Logger log = LoggerFactory.getLogger(PinnedSections.class);

    private final long capacityBytes;
    private final AtomicLong usedBytes = new AtomicLong();
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * @param capacityBytes native memory the tables' sections may take together, bytes; 0 for none
     * @throws IllegalArgumentException if {@code capacityBytes} is negative
     */
    public PinnedSections(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("pinned sections budget must not be negative: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /**
     * Takes {@code bytes} of the budget for {@code table} if they fit; the caller gives them back with
     * {@link #release} when it frees the copy.
     *
     * @param table what the sections belong to, for the WARN line when they do not fit
     * @return whether they were taken
     */
    boolean tryReserve(long bytes, Object table) {
        long used;
        do {
            used = usedBytes.get();
            if (bytes > capacityBytes - used) {
                if (capacityBytes > 0 && warned.compareAndSet(false, true)) {
                    log.warn(
                            "SSTable indexes and Bloom filters fill their {} bytes of memory: {} and later tables "
                                    + "past it read theirs through the page cache, so their reads wait for the "
                                    + "device when it has lost them; raise --index-filter-memory",
                            capacityBytes,
                            table);
                }
                return false;
            }
        } while (!usedBytes.compareAndSet(used, used + bytes));
        return true;
    }

    /** Gives back {@code bytes} that {@link #tryReserve} took. */
    void release(long bytes) {
        usedBytes.addAndGet(-bytes);
    }

    /** Bytes held now by tables' copied sections. */
    public long usedBytes() {
        return usedBytes.get();
    }

    /** The budget, bytes. */
    public long capacityBytes() {
        return capacityBytes;
    }
}
