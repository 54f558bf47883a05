package io.ringbase.cluster.repair;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The local side of repair: Merkle trees and pages of this node's entries, restricted to the keys this
 * node shares with a peer. The internal HTTP handlers answer a peer's repair requests with it, and the
 * {@link AntiEntropyRepair} driver uses it for its own side.
 *
 * <p>A key is <em>shared</em> by this node and {@code peer} if both are among the first {@code rf}
 * replicas of its hash ({@link Ring#isReplica}). Every node of a cluster must use the same {@code rf}
 * (the cluster's replication factor, the default {@code from}), or the two sides of a comparison would
 * cover different keys and disagree everywhere. So repair never copies a key to a node outside its first
 * {@code rf} replicas; it does copy a key written with a smaller {@code from} to all {@code rf} of them,
 * since entries do not record their write's {@code from} (docs/design.md, "What is compared").
 *
 * <p>Both methods make one pass over the engine from the given start key, tombstones and expired
 * entries included (a repair must carry deletes). Stateless and thread-safe.
 */
public final class RepairSource {

    private final StorageEngine engine;
    private final Supplier<Placement> placement;

    /**
     * @param engine the local engine
     * @param ring   placement of the cluster
     * @param self   this node
     * @param rf     replication factor repair assumes, {@code 1..ring.size()} (pass the cluster's replication factor)
     * @throws IllegalArgumentException if {@code rf} is out of bounds
     */
    public RepairSource(StorageEngine engine, Ring ring, NodeId self, int rf) {
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(self, "self");
        if (rf < 1 || rf > ring.size()) {
            throw new IllegalArgumentException("rf must be 1.." + ring.size() + ", got " + rf);
        }
        Placement fixed = new Placement(0, self, rf, ring, ring);
        this.engine = Objects.requireNonNull(engine, "engine");
        this.placement = () -> fixed;
    }

    /**
     * A source over the cluster's placement as it changes: keys are compared under the current ring (the
     * one reads use) and replication factor of the moment each is looked at. Two nodes at different
     * epochs may compare different key sets for a while; a key then copied to a node that no longer
     * holds it is dropped again by that node's cleanup.
     *
     * @param placement the placement now (read for every key)
     */
    public RepairSource(StorageEngine engine, Supplier<Placement> placement) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.placement = Objects.requireNonNull(placement, "placement");
    }

    public NodeId self() {
        return placement.get().self();
    }

    /** Whether the key with hash {@code keyHash} is replicated on both this node and {@code peer}. */
    public boolean shared(long keyHash, NodeId peer) {
        Placement p = placement.get();
        Ring ring = p.current();
        int rf = p.replicationFactor();
        return ring.isReplica(keyHash, rf, p.self()) && ring.isReplica(keyHash, rf, peer);
    }

    /**
     * The Merkle tree of this node's entries in {@code range} that it shares with {@code peer}: one full
     * scan of the engine.
     *
     * @throws IllegalArgumentException unless {@code 0 <= range < 16}
     * @throws IOException              if the engine cannot be read
     */
    public MerkleTree tree(int range, NodeId peer) throws IOException {
        MerkleTree.Builder builder = new MerkleTree.Builder(range);
        try (CloseableIterator<Entry> it = engine.scan(new byte[0], null, false)) {
            while (it.hasNext()) {
                Entry e = it.next();
                long hash = Ring.keyHash(e.key());
                if (MerkleTree.rangeOf(hash) == range && shared(hash, peer)) {
                    builder.add(hash, e);
                }
            }
        }
        return builder.build();
    }

    /**
     * One page of this node's entries in {@code range} whose leaf is in {@code leaves} and that it
     * shares with {@code peer}, with keys {@code >= startKey}, in key order.
     *
     * @param leaves   leaf ids (0..1023) to include
     * @param startKey inclusive lower bound: empty for the first page, then the previous page's
     *                 {@link EntryPage#next()}
     * @param maxBytes the page ends after the entry that takes its encoded size ({@link EntryFormat}) to
     *                 this many bytes or more, so it holds at least one entry if any is left; its
     *                 {@code next} is then the last key's {@link EntryPage#successor}, and a following
     *                 page may turn out empty
     * @throws IllegalArgumentException if {@code range} is out of bounds or {@code maxBytes < 1}
     * @throws IOException              if the engine cannot be read
     */
    public EntryPage entries(int range, NodeId peer, BitSet leaves, byte[] startKey, int maxBytes) throws IOException {
        if (range < 0 || range >= MerkleTree.RANGES) {
            throw new IllegalArgumentException("range must be 0.." + (MerkleTree.RANGES - 1) + ", got " + range);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        }
        if (leaves.isEmpty()) {
            return new EntryPage(List.of(), null);
        }
        return EntryPage.scan(
                engine,
                startKey,
                maxBytes,
                hash -> MerkleTree.rangeOf(hash) == range && leaves.get(MerkleTree.leafOf(hash)) && shared(hash, peer));
    }
}
