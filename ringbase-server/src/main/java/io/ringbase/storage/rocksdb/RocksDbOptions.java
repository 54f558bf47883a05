package io.ringbase.storage.rocksdb;

import io.ringbase.storage.EngineOptions;
import io.ringbase.storage.WalSyncPolicy;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Settings of a {@link RocksDbEngine}, validated on construction. The native memory it may take is about
 * {@code blockCacheBytes + 2 * memtableBytes + 4 MiB} plus about 2 B per key of index and filters and
 * RocksDB's own few MiB (docs/design.md, "Memory budget").
 *
 * @param dataDir           the node's data directory; RocksDB's files go in its {@code rocksdb/} subdirectory
 * @param walSync           {@link WalSyncPolicy#ALWAYS}: every write is fsynced before it returns;
 *                          {@link WalSyncPolicy#PERIODIC}: written to the OS at once, fsynced every interval
 * @param walSyncIntervalMs fsync interval of the periodic policy, ms (default 1000)
 * @param memtableBytes     RocksDB's {@code write_buffer_size}; at most two exist at once (default 16 MiB)
 * @param blockCacheBytes   the LRU cache of data blocks (default 32 MiB); index and Bloom filter blocks
 *                          are held by the open tables, outside it
 * @param tombstoneGraceMs  tombstones and expired entries older than this are deleted by a purge pass
 *                          ({@link RocksDbEngine#purge}), ms (default 0)
 * @param purgeIntervalMs   how often the purge pass runs in the background, ms (default one hour)
 * @param wallClockMs       the wall clock, Unix epoch ms (injectable for tests)
 */
public record RocksDbOptions(
        Path dataDir,
        WalSyncPolicy walSync,
        long walSyncIntervalMs,
        long memtableBytes,
        long blockCacheBytes,
        long tombstoneGraceMs,
        long purgeIntervalMs,
        LongSupplier wallClockMs) {

    public static final long DEFAULT_BLOCK_CACHE_BYTES = 32L << 20;
    public static final long DEFAULT_PURGE_INTERVAL_MS = 3_600_000L;

    public RocksDbOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(walSync, "walSync");
        Objects.requireNonNull(wallClockMs, "wallClockMs");
        if (walSyncIntervalMs <= 0 || purgeIntervalMs <= 0) {
            throw new IllegalArgumentException("intervals must be positive");
        }
        if (memtableBytes < 64 * 1024) {
            throw new IllegalArgumentException("memtableBytes must be at least 64 KiB: " + memtableBytes);
        }
        if (blockCacheBytes < 1 << 20) {
            throw new IllegalArgumentException("blockCacheBytes must be at least 1 MiB: " + blockCacheBytes);
        }
        if (tombstoneGraceMs < 0) {
            throw new IllegalArgumentException("tombstoneGraceMs must not be negative");
        }
    }

    /**
     * The settings of {@code shared} that both engines take (directory, WAL policy and interval, memtable size
     * but at least 64 KiB, tombstone grace, clock), with the defaults above for the rest.
     */
    public static RocksDbOptions from(EngineOptions shared) {
        return new RocksDbOptions(
                shared.dataDir(),
                shared.walSync(),
                shared.walSyncIntervalMs(),
                Math.max(64 * 1024, shared.memtableBytes()),
                DEFAULT_BLOCK_CACHE_BYTES,
                shared.tombstoneGraceMs(),
                DEFAULT_PURGE_INTERVAL_MS,
                shared.wallClockMs());
    }
}
