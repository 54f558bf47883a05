package io.ringbase.storage.rocksdb;

import io.ringbase.storage.EngineStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.LevelMetaData;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * RocksDB's figures in {@link EngineStats}' terms: memtable bytes ({@code cur-size-all-mem-tables}), one
 * tier per non-empty LSM level (tier = level number), flushes and compactions counted by the engine's event
 * listener, their bytes and the WAL's from RocksDB's statistics tickers. {@code flushBytesIn} is the bytes
 * flushed as written ({@code FLUSH_WRITE_BYTES}; RocksDB does not report memtable bytes flushed);
 * {@code walAppends} is keys written, {@code walWrites} writes done as group-commit leaders. Stateless.
 */
final class RocksStats {

    private RocksStats() {}

    /** The figures of a closed engine: only the counts it kept itself. */
    static EngineStats closed(long flushes, long compactions, long diskErrors) {
        return new EngineStats(
                0, List.of(), flushes, 0, 0, compactions, 0, 0, 0, 0, 0, 0, 0, 0, 0, diskErrors, 0, 0, 0, 0, 0);
    }

    /**
     * The figures of an open engine; the caller holds the engine's close lock (read side).
     *
     * @throws RocksDBException if RocksDB cannot give a property
     */
    static EngineStats of(
            RocksDB db, ColumnFamilyHandle data, Statistics statistics, long flushes, long compactions, long diskErrors)
            throws RocksDBException {
        long memtable = db.getLongProperty(data, "rocksdb.cur-size-all-mem-tables");
        List<EngineStats.Tier> tiers = new ArrayList<>();
        for (LevelMetaData level : db.getColumnFamilyMetaData(data).levels()) {
            if (!level.files().isEmpty()) {
                tiers.add(new EngineStats.Tier(level.level(), level.files().size(), level.size()));
            }
        }
        long flushOut = statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES);
        return new EngineStats(
                memtable,
                tiers,
                flushes,
                flushOut,
                flushOut,
                compactions,
                statistics.getTickerCount(TickerType.COMPACT_READ_BYTES),
                statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES),
                statistics.getTickerCount(TickerType.NUMBER_KEYS_WRITTEN),
                statistics.getTickerCount(TickerType.WAL_FILE_BYTES),
                statistics.getTickerCount(TickerType.WRITE_DONE_BY_SELF),
                statistics.getTickerCount(TickerType.WAL_FILE_SYNCED),
                0,
                0,
                TimeUnit.MICROSECONDS.toNanos(statistics.getTickerCount(TickerType.STALL_MICROS)),
                diskErrors,
                0, // no quarantine: RocksDB reports corruption as errors
                statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT),
                statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS),
                0, // RocksDB always preads
                db.getLongProperty(data, "rocksdb.estimate-table-readers-mem"));
    }
}
