/**
 * Anti-entropy repair with Merkle trees (Merkle, "A Digital Signature Based on a Conventional
 * Encryption Function", CRYPTO 1987; DeCandia et al., "Dynamo", SOSP 2007, section 4.7; Cassandra's
 * {@code nodetool repair}): two replicas compare hash trees of the data they share and stream only the
 * entries under differing leaves, so a replica that missed writes, or lost its data directory, catches
 * up without a full copy.
 *
 * <p>{@link io.ringbase.cluster.repair.MerkleTree} is the tree of one hash range;
 * {@link io.ringbase.cluster.repair.RepairSource} builds trees and entry pages from the local engine
 * (the server side); {@link io.ringbase.cluster.repair.RepairPeer} is what the driver needs of another
 * node; {@link io.ringbase.cluster.repair.AntiEntropyRepair} runs one repair at a time on its own
 * background thread and reports {@link io.ringbase.cluster.repair.RepairStatus}.
 *
 * <p>Concurrency: {@code MerkleTree} and {@code RepairSource} are immutable/stateless and thread-safe;
 * {@code AntiEntropyRepair} is thread-safe, and all repair work happens on its one thread.
 */
package io.ringbase.cluster.repair;
