/**
 * SSTables: immutable sorted files. {@code SstableWriter} writes one in format version 5 (blocks of about
 * 4 KiB of prefix-compressed entries, {@code CompactEntry}, LZ4-compressed where that pays, each with a
 * CRC32C; a sparse index of one last key per block; a cache-blocked Bloom filter; a footer with the counts
 * {@code EntryStats} gathers, expiries included); {@code SstableReader} reads versions 5 to 2
 * ({@code BlockTable}; version 2 blocks hold entries in the WAL's encoding) and version 1 ({@code V1Table}: checksummed
 * records, an exact index) through a memory-mapped {@code MemorySegment}, with a Bloom filter in front.
 * Owns the SSTable format ({@code docs/format.md}, section 4). {@code ReadFault} says which failed reads
 * mean the disk cannot read a table (EIO on a mapped page or a {@code pread}), for the engine to report
 * and quarantine it as damage.
 *
 * <p>Concurrency: a writer is used by one thread at a time; a reader is immutable and serves any number
 * of concurrent lookups and iterators, each iterator, cursor and {@code EntryLocation} being used by one
 * thread. Memory: the writer's use is constant in the number of entries (blocks, data and index stream to
 * disk, the Bloom filter is off-heap); the reader keeps nothing per entry or per block on the heap, and a
 * lookup decompresses at most one block, into its caller's reusable buffer.
 */
package io.ringbase.storage.lsm.sstable;
