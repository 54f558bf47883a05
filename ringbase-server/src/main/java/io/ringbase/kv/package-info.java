/**
 * The key-value service the public API calls ({@link io.ringbase.kv.KeyValueService}): point reads and
 * writes with per-request quorums ({@link io.ringbase.kv.Quorum}), range scans as asynchronous batch
 * streams ({@link io.ringbase.kv.EntryBatchSource}), and the failure of too few replicas
 * ({@link io.ringbase.kv.QuorumException}). {@link io.ringbase.kv.LocalKeyValueService} is the service of a
 * node alone, a cluster of one; the cluster's own implementation lives in {@code cluster.proxy}, which
 * depends on this package, never the other way round. Depends only on {@code storage} and {@code clock}.
 */
package io.ringbase.kv;
