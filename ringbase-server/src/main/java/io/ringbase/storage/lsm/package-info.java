/**
 * Ringbase's own log-structured merge engine, {@link io.ringbase.storage.lsm.LsmEngine}: a WAL and an
 * off-heap memtable in front of immutable SSTables, background flush and size-tiered compaction
 * (docs/design.md, "Storage engine"). The facade delegates to one class per concern: the write path and
 * its backpressure, WAL segment rotation, the read path, the flusher, the state publisher (the only way
 * the live {@link io.ringbase.storage.lsm.View} and the manifest change), compaction scheduling,
 * quarantine of damaged tables, snapshots, health and counters. Subpackages hold the formats and their
 * components: {@code wal}, {@code memtable}, {@code sstable}, {@code manifest}, {@code compaction},
 * {@code io}.
 *
 * <p>Concurrency: the engine is thread-safe. Readers never lock: they pin the current reference-counted
 * {@code View}. Writers take the read side of {@code switchLock}; memtable switches its write side;
 * flushes, compactions and quarantines publish under {@code publishLock}, then {@code stateLock} for the
 * swap of the view alone. One flush thread and one compaction thread do the background work. Which lock
 * guards what, the order in which they may be taken and which class takes each are written in one place:
 * docs/design.md, section "Locking in the LSM engine".
 */
package io.ringbase.storage.lsm;
