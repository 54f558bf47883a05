/**
 * The local storage engine: the {@link io.ringbase.storage.StorageEngine} facade, the {@link io.ringbase.storage.Entry} model and its encoding. Orchestrates the WAL, memtables, SSTables, compaction and the manifest; holds no byte-level code of those formats. Knows nothing of HTTP or of the cluster.
 */
package io.ringbase.storage;
