/**
 * Lifetimes of the engine's memtables and SSTables: the reference count a reader pins one with
 * ({@link io.ringbase.storage.lsm.lifetime.RefCount}), so that a flush or a compaction can retire it while
 * reads still run, and free it when the last one ends. Lock-free (compare-and-set); depends on nothing.
 */
package io.ringbase.storage.lsm.lifetime;
