/**
 * Compaction: the picker decides which SSTables to merge (size-tiered, pure logic); the compactor merges them, dropping shadowed versions, expired entries and tombstones that are safe to drop, and in a cleanup ({@code Cleanup}) every entry of the keys the node no longer replicates.
 *
 * <p>Concurrency: the picker and options are immutable; a merge and {@code CompactionPriority} run on the
 * engine's single compaction thread.
 */
package io.ringbase.storage.lsm.compaction;
