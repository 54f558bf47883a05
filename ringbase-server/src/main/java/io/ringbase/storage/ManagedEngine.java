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
     * Removes from this node every entry (values, tombstones, expired entries, and every older version)
     * of each key that {@code keep} rejects, without writing a tombstone: a purely local removal, as
     * Cassandra's {@code nodetool cleanup}, for the keys this node no longer replicates once a bootstrap
     * moved their range to another node. A tombstone would be a replicated delete, which anti-entropy
     * would spread to the key's real replicas. Keys {@code keep} accepts lose nothing a compaction would
     * not drop anyway (shadowed versions; tombstones and expired entries past the tombstone grace).
     *
     * <p>Afterwards {@link #get} and {@link #scan} return nothing of a rejected key that was stored when
     * the cleanup began (no older version surfaces either), and so it stays after a restart.
     *
     * <p><b>Cost.</b> One full rewrite of the data: it reads and writes about the data's size (bytes of its
     * tables), and needs that much free disk for a moment. Memory stays bounded whatever the data holds.
     *
     * <p><b>Concurrency.</b> Reads and writes go on as usual while it runs. A write that races with it for
     * a key {@code keep} rejects may be kept or removed: one acknowledged before the call began is
     * removed, one made after it returned is kept, one in between may go either way. Callers that need a
     * rejected key gone for good stop writing it first (a node stops being its replica, then cleans up).
     *
     * @param keep which keys this node keeps; see {@link KeyFilter} for how it is called
     * @return the number of keys whose entries were removed: one per key, however many versions of it
     *         were stored
     * @throws InsufficientSpaceException if the disk lacks room for the rewrite (nothing was changed)
     * @throws IOException if the cleanup failed, the engine closed, or {@code keep} threw (its exception is
     *         the cause); what stays then is the engine's to say ({@code LsmEngine}: everything, as it was;
     *         {@code RocksDbEngine}: the keys removed so far are gone), and a second call finishes the job
     * @throws NullPointerException if {@code keep} is null
     */
    long cleanup(KeyFilter keep) throws IOException;

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
