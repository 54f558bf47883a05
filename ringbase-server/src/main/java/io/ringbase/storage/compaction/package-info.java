/**
 * Compaction: the picker decides which SSTables to merge (size-tiered, pure logic); the compactor merges them, dropping shadowed versions, expired entries and tombstones that are safe to drop.
 */
package io.ringbase.storage.compaction;
