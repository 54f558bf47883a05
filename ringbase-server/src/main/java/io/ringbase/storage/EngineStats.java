package io.ringbase.storage;

import java.util.List;

/**
 * A snapshot of an engine's figures for metrics and the status page
 * ({@link ManagedEngine#stats()}; the LSM engine's terms, which RocksDB's engine maps its own onto). Counters run since the engine opened; sizes are now.
 *
 * @param memtableBytes       slab bytes of the active and switched-out memtables, exact
 * @param tiers               live SSTables by size tier (the compaction picker's tiers), smallest first
 * @param flushes             memtables flushed to SSTables
 * @param flushBytesIn        memtable bytes flushed
 * @param flushBytesOut       SSTable bytes written by flushes
 * @param compactions         compactions finished
 * @param compactionBytesIn   SSTable bytes read by compactions (their inputs' sizes)
 * @param compactionBytesOut  SSTable bytes written by compactions
 * @param walAppends          WAL records appended
 * @param walBytes            WAL bytes appended
 * @param walWrites           WAL {@code write()} calls (group commit batches)
 * @param walSyncs            WAL fsyncs
 * @param walSyncNanos        time spent in WAL fsyncs, ns
 * @param writeStalls         blocking writes that had to wait for a flush (the memtable was full and
 *                            another still waited for its flush)
 * @param writeStallNanos     time those writes waited, ns
 * @param diskErrors          failed flushes, failed compactions (other than aborts for shutdown) and
 *                            failed WAL writes or fsyncs
 * @param quarantinedTables   SSTables found damaged (by compaction) or unreadable (EIO) and moved to
 *                            {@code quarantine/}
 * @param blockCacheHits      point reads of a compressed SSTable block that found it in the block cache
 * @param blockCacheMisses    ... and that did not (RocksDB: its block cache's hits and misses)
 * @param preadTables         live SSTables whose point reads use {@code pread} now, because their reads
 *                            through the mapping waited for the device: they are not (all) in the page
 *                            cache (docs/design.md, "Tables larger than the page cache"; RocksDB: 0)
 * @param pinnedSectionBytes  native memory holding live SSTables' index and Bloom filter sections, bytes
 *                            (RocksDB: its table readers' memory, {@code rocksdb.estimate-table-readers-mem})
 */
public record EngineStats(
        long memtableBytes,
        List<Tier> tiers,
        long flushes,
        long flushBytesIn,
        long flushBytesOut,
        long compactions,
        long compactionBytesIn,
        long compactionBytesOut,
        long walAppends,
        long walBytes,
        long walWrites,
        long walSyncs,
        long walSyncNanos,
        long writeStalls,
        long writeStallNanos,
        long diskErrors,
        long quarantinedTables,
        long blockCacheHits,
        long blockCacheMisses,
        long preadTables,
        long pinnedSectionBytes) {

    public EngineStats {
        tiers = List.copyOf(tiers);
    }

    /**
     * One size tier of live SSTables.
     *
     * @param tier   0 for the smallest tables, counting up
     * @param tables SSTables in it
     * @param bytes  their file sizes, bytes
     */
    public record Tier(int tier, int tables, long bytes) {}

    /** Live SSTables, all tiers. */
    public int sstables() {
        return tiers.stream().mapToInt(Tier::tables).sum();
    }

    /** Bytes of live SSTables, all tiers. */
    public long sstableBytes() {
        return tiers.stream().mapToLong(Tier::bytes).sum();
    }
}
