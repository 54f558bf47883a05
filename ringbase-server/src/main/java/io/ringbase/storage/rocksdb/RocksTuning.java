package io.ringbase.storage.rocksdb;

import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;

/**
 * How {@link RocksDbEngine} sets RocksDB up: the block cache, Bloom filters, the two column families
 * ({@code default} for entries, {@value #META_FAMILY} for the largest version) and the database options,
 * each with the reason it is set so. The settings only; opening is the engine's.
 */
final class RocksTuning {

    /** Column family of the largest version written (docs/format.md, "RocksDB engine"). */
    static final String META_FAMILY = "ringbase-meta";
    /** Memtable size of the meta column family (at most two exist). */
    static final long META_MEMTABLE_BYTES = 2L << 20;

    /**
     * What {@code RocksDB.open} takes, all of it also in the natives list given to {@link #configure}.
     *
     * @param families   {@code default}, then {@value #META_FAMILY}
     * @param statistics the tickers {@link RocksDbEngine#stats()} reads
     */
    record Opening(DBOptions dbOptions, List<ColumnFamilyDescriptor> families, Statistics statistics) {}

    private RocksTuning() {}

    /**
     * Makes RocksDB's options for {@code options}, with {@code listener} as the event listener. Every
     * native object made is added to {@code natives} as it is made, so the caller closes them (in reverse
     * order) whether or not the database opens.
     */
    static Opening configure(RocksDbOptions options, RocksEvents listener, List<AutoCloseable> natives) {
        LRUCache cache = new LRUCache(options.blockCacheBytes());
        natives.add(cache);
        BloomFilter bloom = new BloomFilter(10);
        natives.add(bloom);
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(cache)
                .setFilterPolicy(bloom)
                // RocksDB's default: index and filter blocks live with the table readers, outside the
                // cache. In the cache (tried first), data blocks evicted a table's whole top-level index
                // (hundreds of KiB) and point reads ran at ~1,000/s
                .setCacheIndexAndFilterBlocks(false);
        ColumnFamilyOptions dataOptions = new ColumnFamilyOptions()
                .setWriteBufferSize(options.memtableBytes())
                .setMaxWriteBufferNumber(2)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setLevelCompactionDynamicLevelBytes(true)
                .setTableFormatConfig(table);
        natives.add(dataOptions);
        // one merge operand per write: a small memtable would flush every few thousand writes and
        // pile up level-0 files until RocksDB stalls writes (seen: "20 level-0 files" in 1M writes)
        ColumnFamilyOptions metaOptions = new ColumnFamilyOptions()
                .setWriteBufferSize(META_MEMTABLE_BYTES)
                .setMaxWriteBufferNumber(2)
                .setMergeOperatorName("max");
        natives.add(metaOptions);
        Statistics statistics = new Statistics();
        statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        natives.add(statistics);
        natives.add(listener);
        DBOptions dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setMaxBackgroundJobs(2)
                .setBytesPerSync(1 << 20)
                .setKeepLogFileNum(2)
                .setMaxTotalWalSize(4 * options.memtableBytes()) // flushes the meta family's memtable too
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setStatistics(statistics)
                .setListeners(List.of(listener));
        natives.add(dbOptions);
        List<ColumnFamilyDescriptor> families = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, dataOptions),
                new ColumnFamilyDescriptor(
                        META_FAMILY.getBytes(java.nio.charset.StandardCharsets.US_ASCII), metaOptions));
        return new Opening(dbOptions, families, statistics);
    }
}
