package io.ringbase.storage;

import java.io.IOException;

/**
 * A {@link StorageEngine} as a node runs it: besides reads and writes, the figures, compaction and
 * snapshots that {@code /v0/admin/}, metrics and the status page use, and the newest version stored,
 * which the node's clock observes on start. Implementations: {@code io.ringbase.storage.lsm.LsmEngine},
 * {@code io.ringbase.storage.rocksdb.RocksDbEngine}.
 */
public interface ManagedEngine extends StorageEngine {

    /** The largest version stored, or {@link Long#MIN_VALUE} if none; for clocks to observe on start. */
    long maxVersion();

    /** The engine's figures now ({@link EngineStats}); takes no lock the write path takes. */
    EngineStats stats();

    /** Number of live table files (SSTables), all levels or tiers. */
    int tableCount();

    /**
     * Merges every table into as few as the engine can (a major compaction), dropping tombstones and
     * expired entries older than the tombstone grace; waits for it.
     *
     * @return how many tables there were to merge (0 if none)
     * @throws IOException if the compaction failed or the engine closed
     */
    int compactAll() throws IOException;

    /**
     * Flushes, then writes a complete data directory as of the flush under
     * {@code <data-dir>/snapshots/<name>/} ({@link DataDirectory#snapshot}), sharing immutable files by
     * hard links.
     *
     * @return the snapshot's directory and what it holds
     * @throws IllegalArgumentException if {@code name} is not a valid snapshot name
     * @throws java.nio.file.FileAlreadyExistsException if a snapshot of that name exists
     */
    Snapshot snapshot(String name) throws IOException;
}
