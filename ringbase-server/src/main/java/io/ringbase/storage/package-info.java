/**
 * The storage engine API: what a node needs of the engine that keeps its data on its own disk, whichever
 * engine that is. {@link io.ringbase.storage.StorageEngine} (reads, writes, scans) and
 * {@link io.ringbase.storage.ManagedEngine} (figures, compaction, cleanup of the keys a
 * {@link io.ringbase.storage.KeyFilter} rejects, snapshots); the
 * {@link io.ringbase.storage.Entry} model and the encoding both engines share
 * ({@link io.ringbase.storage.EntryFormat}, {@link io.ringbase.storage.Layouts}, which a
 * {@link io.ringbase.storage.ReadCursor} points into); key order ({@link io.ringbase.storage.Keys});
 * batches of writes; the data directory's lock and shared names; and the typed exceptions engines throw.
 *
 * <p>The engines live below it: our own LSM engine in {@code io.ringbase.storage.lsm}, RocksDB's in
 * {@code io.ringbase.storage.rocksdb}. Dependencies point one way: the engines use this package, this
 * package uses neither engine, and nothing here knows of HTTP or of the cluster
 * ({@code ArchitectureTest} checks it).
 *
 * <p>Concurrency: engines are thread-safe ({@link io.ringbase.storage.StorageEngine}); a
 * {@link io.ringbase.storage.ReadCursor} and a {@link io.ringbase.storage.WriteBatch} belong to one thread
 * at a time; everything else here is immutable.
 */
package io.ringbase.storage;
