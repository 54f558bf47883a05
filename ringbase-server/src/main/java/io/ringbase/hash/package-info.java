/**
 * The 64-bit hash Ringbase uses wherever it hashes keys: xxHash64 (Yann Collet), for Bloom filters and
 * memtable key filters in the engine, and for placement (rendezvous hashing) and Merkle trees in the
 * cluster. A stored format depends on its exact output (Bloom filters in SSTables), so it never changes.
 * Depends on nothing; thread-safe (pure functions).
 */
package io.ringbase.hash;
