package io.ringbase.storage.lsm;

import io.ringbase.clock.TimeSource;
import io.ringbase.storage.EngineOptions;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Settings of an {@link LsmEngine}, validated on construction.
 *
 * @param dataDir             the data directory (created if absent)
 * @param walSync             WAL sync policy (default {@link WalSyncPolicy#PERIODIC})
 * @param walSyncIntervalMs   fsync interval of the periodic policy, ms (default 1000)
 * @param memtableBytes       a memtable is switched out and flushed once its estimated heap size
 *                            reaches this many bytes (default 16 MiB)
 * @param walSegmentBytes     ... or once its WAL segment reaches this many bytes, so that overwrites
 *                            of the same keys cannot grow the WAL without bound (default 64 MiB)
 * @param flushStallTimeoutMs how long a write waits for a lagging flush before it fails with
 *                            {@link StoreBusyException}, ms (default 30,000)
 * @param compaction          size-tiered compaction settings
 * @param tombstoneGraceMs    a tombstone or expired entry is dropped by compaction only once it is
 *                            older than this, ms (default 0 on a single node; the cluster sets its
 *                            grace period here)
 * @param wallClockMs         the wall clock, Unix epoch ms (injectable for tests)
 * @param fileIo              the file layer every written file goes through (default {@link FileIo#DISK};
 *                            tests inject faults here)
 * @param walRecovery         what recovery does with a WAL segment damaged before its end (default
 *                            {@link WalRecoveryMode#REFUSE})
 * @param blockCacheBytes     native memory of the cache of decompressed SSTable blocks that point reads
 *                            go through, bytes (default 0: none, see docs/design.md; below 68 KiB,
 *                            none)
 * @param pinnedSectionBytes  native memory into which tables copy their index and Bloom filter sections,
 *                            bytes, so that lookups need not read them from the device once the page cache
 *                            has lost them; tables past it read them in their mapping (default
 *                            {@link #DEFAULT_PINNED_SECTION_BYTES}; 0 for none)
 */
public record LsmOptions(
        Path dataDir,
        WalSyncPolicy walSync,
        long walSyncIntervalMs,
        long memtableBytes,
        long walSegmentBytes,
        long flushStallTimeoutMs,
        CompactionOptions compaction,
        long tombstoneGraceMs,
        LongSupplier wallClockMs,
        FileIo fileIo,
        WalRecoveryMode walRecovery,
        long blockCacheBytes,
        long pinnedSectionBytes)
        implements EngineOptions {

    public static final long DEFAULT_MEMTABLE_BYTES = 16L << 20;
    /**
     * No block cache by default: tables are memory-mapped, so the page cache already holds their blocks
     * and the cache would only save LZ4 decompression, which its inserts cost more than under uniform
     * reads.
     */
    public static final long DEFAULT_BLOCK_CACHE_BYTES = 0;

    /**
     * 64 MiB of SSTable indexes and Bloom filters held in native memory: about 2.6 bytes per key at the
     * default 4 KiB blocks of 100-byte values (1.25 of filter, the rest index), so those of about 25 million
     * keys.
     */
    public static final long DEFAULT_PINNED_SECTION_BYTES = 64L << 20;

    public LsmOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(walSync, "walSync");
        Objects.requireNonNull(compaction, "compaction");
        Objects.requireNonNull(wallClockMs, "wallClockMs");
        Objects.requireNonNull(fileIo, "fileIo");
        Objects.requireNonNull(walRecovery, "walRecovery");
        if (walSyncIntervalMs <= 0) {
            throw new IllegalArgumentException("walSyncIntervalMs must be positive: " + walSyncIntervalMs);
        }
        if (memtableBytes < 4096) {
            throw new IllegalArgumentException("memtableBytes must be at least 4096: " + memtableBytes);
        }
        if (walSegmentBytes < memtableBytes) {
            throw new IllegalArgumentException("walSegmentBytes must be at least memtableBytes");
        }
        if (pinnedSectionBytes < 0) {
            throw new IllegalArgumentException("pinnedSectionBytes must not be negative: " + pinnedSectionBytes);
        }
        if (blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes must not be negative: " + blockCacheBytes);
        }
        if (flushStallTimeoutMs <= 0 || tombstoneGraceMs < 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
    }

    /** The settings above on the real file system ({@link FileIo#DISK}). */
    public LsmOptions(
            Path dataDir,
            WalSyncPolicy walSync,
            long walSyncIntervalMs,
            long memtableBytes,
            long walSegmentBytes,
            long flushStallTimeoutMs,
            CompactionOptions compaction,
            long tombstoneGraceMs,
            LongSupplier wallClockMs) {
        this(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                FileIo.DISK,
                WalRecoveryMode.REFUSE,
                DEFAULT_BLOCK_CACHE_BYTES,
                DEFAULT_PINNED_SECTION_BYTES);
    }

    /** The defaults listed above for {@code dataDir}. */
    public static LsmOptions defaults(Path dataDir) {
        return new LsmOptions(
                dataDir,
                WalSyncPolicy.PERIODIC,
                1000,
                DEFAULT_MEMTABLE_BYTES,
                4 * DEFAULT_MEMTABLE_BYTES,
                30_000,
                CompactionOptions.defaults(),
                0,
                TimeSource.SYSTEM);
    }

    public LsmOptions withWalSync(WalSyncPolicy policy) {
        return new LsmOptions(
                dataDir,
                policy,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    public LsmOptions withDataDir(Path dir) {
        return new LsmOptions(
                dir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    public LsmOptions withWalSyncIntervalMs(long intervalMs) {
        return new LsmOptions(
                dataDir,
                walSync,
                intervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    /** Sets the memtable size and a WAL segment limit of four times it. */
    public LsmOptions withMemtableBytes(long bytes) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                bytes,
                4 * bytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    public LsmOptions withCompaction(CompactionOptions options) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                options,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    public LsmOptions withWallClock(LongSupplier clock) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                clock,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    public LsmOptions withTombstoneGraceMs(long graceMs) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                graceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    /** These settings with {@code io} as the file layer (tests inject faults with it). */
    public LsmOptions withFileIo(FileIo io) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                io,
                walRecovery,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    /** These settings with {@code mode} for damaged WAL segments at recovery. */
    public LsmOptions withWalRecovery(WalRecoveryMode mode) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                mode,
                blockCacheBytes,
                pinnedSectionBytes);
    }

    /** These settings with a block cache of {@code bytes} (0 for none). */
    public LsmOptions withBlockCacheBytes(long bytes) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                bytes,
                pinnedSectionBytes);
    }

    /** These settings with {@code bytes} of native memory for the tables' index and Bloom filter sections (0 for none). */
    public LsmOptions withPinnedSectionBytes(long bytes) {
        return new LsmOptions(
                dataDir,
                walSync,
                walSyncIntervalMs,
                memtableBytes,
                walSegmentBytes,
                flushStallTimeoutMs,
                compaction,
                tombstoneGraceMs,
                wallClockMs,
                fileIo,
                walRecovery,
                blockCacheBytes,
                bytes);
    }
}
