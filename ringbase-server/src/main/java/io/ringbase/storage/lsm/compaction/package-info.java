/**
 * Compaction: a picker decides which SSTables to merge (pure logic: {@code SizeTieredPicker} or
 * {@code UniversalPicker}, by {@code CompactionStrategy}; {@code TombstoneTrigger} when neither finds a
 * merge), the scheduler when; the compactor merges them, dropping shadowed versions, expired entries and tombstones that are safe to drop, and in a cleanup ({@code Cleanup}) every entry of the keys the node no longer replicates.
 *
 * <p>Concurrency: the picker and options are immutable; a merge and {@code CompactionPriority} run on the
 * engine's single compaction thread.
 */
package io.ringbase.storage.lsm.compaction;
