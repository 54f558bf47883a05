package io.ringbase.storage;

import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The settings every engine of a node takes from its flags, whatever the engine: each engine's own
 * options type implements or is made from it ({@code io.ringbase.storage.lsm.LsmOptions} implements it;
 * {@code io.ringbase.storage.rocksdb.RocksDbOptions.from} reads it).
 */
public interface EngineOptions {

    /** The data directory (created if absent). */
    Path dataDir();

    /** When the write-ahead log is fsynced. */
    WalSyncPolicy walSync();

    /** Fsync interval of {@link WalSyncPolicy#PERIODIC}, ms; positive. */
    long walSyncIntervalMs();

    /** Size at which a memtable is switched out and flushed, bytes. */
    long memtableBytes();

    /** Age from which compaction may drop a tombstone or an expired entry, ms; not negative. */
    long tombstoneGraceMs();

    /** The wall clock, Unix epoch ms (injectable for tests). */
    LongSupplier wallClockMs();
}
