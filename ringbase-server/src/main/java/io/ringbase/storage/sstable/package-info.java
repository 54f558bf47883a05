/**
 * SSTables: immutable sorted files. {@code SstableWriter} writes one from sorted entries; {@code SstableReader} reads it through a memory-mapped {@code MemorySegment} with a key index and a Bloom filter. Owns the SSTable format ({@code docs/format.md}, section 4).
 *
 * <p>Concurrency: a writer is used by one thread at a time; a reader is immutable and serves any number
 * of concurrent {@code get}/{@code iterator} calls, each iterator being used by one thread. Memory: the
 * writer's heap use is constant in the number of entries (data and index stream to disk, the Bloom
 * filter is off-heap); the reader keeps nothing per entry on the heap.
 */
package io.ringbase.storage.sstable;
