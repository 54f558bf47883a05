package io.ringbase.storage.lsm;

import io.ringbase.storage.EngineStats;
import io.ringbase.storage.lsm.sstable.BlockCache;
import io.ringbase.storage.lsm.wal.WalStats;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The LSM engine's counters behind {@link EngineStats}: counted off the write path (by the flusher, the
 * compactor and stalled writers), read one by one, so the figures of one {@link #stats} call may be a
 * moment apart. Thread-safe, lock-free.
 */
final class EngineCounters {

    /** Appends, writes and fsyncs of every WAL segment of the engine. */
    final WalStats walStats = new WalStats();
    /** Slab bytes of this engine's memtables not freed yet, pinned flushed ones included. */
    final AtomicLong memtableNativeBytes = new AtomicLong();

    final LongAdder flushes = new LongAdder();
    final LongAdder flushBytesIn = new LongAdder();
    final LongAdder flushBytesOut = new LongAdder();
    final LongAdder compactions = new LongAdder();
    final LongAdder compactionBytesIn = new LongAdder();
    final LongAdder compactionBytesOut = new LongAdder();
    final LongAdder writeStalls = new LongAdder();
    final LongAdder writeStallNanos = new LongAdder();
    final LongAdder backgroundErrors = new LongAdder();
    final LongAdder quarantined = new LongAdder();

    /**
     * The figures now, with those the counters do not keep given.
     *
     * @param memtableBytes slab bytes of the active and switched-out memtables
     * @param tiers         live SSTables by size tier
     * @param cache         the block cache, for its hits and misses
     * @param preadTables   live SSTables whose point reads go through {@code pread}
     * @param pinnedBytes   native memory holding tables' index and Bloom filter sections
     */
    EngineStats stats(
            long memtableBytes, List<EngineStats.Tier> tiers, BlockCache cache, long preadTables, long pinnedBytes) {
        return new EngineStats(
                memtableBytes,
                tiers,
                flushes.sum(),
                flushBytesIn.sum(),
                flushBytesOut.sum(),
                compactions.sum(),
                compactionBytesIn.sum(),
                compactionBytesOut.sum(),
                walStats.appends(),
                walStats.appendedBytes(),
                walStats.writes(),
                walStats.syncs(),
                walStats.syncNanos(),
                writeStalls.sum(),
                writeStallNanos.sum(),
                backgroundErrors.sum() + walStats.failures(),
                quarantined.sum(),
                cache.hits(),
                cache.misses(),
                preadTables,
                pinnedBytes);
    }
}
