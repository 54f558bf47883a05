/**
 * Cluster-wide range scans: {@link io.ringbase.cluster.scan.ClusterScan} merges the sorted pages of
 * several {@link io.ringbase.cluster.replication.Replica replicas} into one stream with each key once,
 * newest version winning, tombstones and expired entries hidden; {@link io.ringbase.kv.LocalBatchSource}
 * serves this node's own data. Both are {@link io.ringbase.kv.EntryBatchSource}s, the
 * asynchronous pull interface that the HTTP layer streams range responses from.
 *
 * <p>Concurrency: a source serves one {@code nextBatch} at a time; no thread ever waits on a replica's
 * future (continuations are chained with {@code thenCompose}). See {@code docs/design.md}, "Cluster
 * range scans".
 */
package io.ringbase.cluster.scan;
