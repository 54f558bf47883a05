/**
 * RocksDB as a Ringbase storage engine ({@code --engine rocksdb}): {@link io.ringbase.storage.rocksdb.RocksDbEngine}
 * keeps the same {@link io.ringbase.storage.StorageEngine} contract as our own LSM engine
 * ({@code io.ringbase.storage.lsm}) on top of rocksdbjni, and is the yardstick of {@code bench/engine-bench.sh}.
 * {@link io.ringbase.storage.rocksdb.RocksValueFormat} owns the value encoding (docs/format.md, "RocksDB engine");
 * {@code RocksTuning} holds RocksDB's settings. It uses only the engine API ({@code io.ringbase.storage}).
 *
 * <p>Concurrency: every method may be called from any thread; writes to the same key are serialized by a
 * striped lock (read, compare versions, write), and closing waits for calls in flight.
 */
package io.ringbase.storage.rocksdb;
