/**
 * SSTables: immutable sorted files. {@code SstableWriter} writes one from sorted entries; {@code SstableReader} reads it through a memory-mapped {@code MemorySegment} with a key index and a Bloom filter. Owns the SSTable format ({@code docs/format.md}).
 */
package io.ringbase.storage.sstable;
