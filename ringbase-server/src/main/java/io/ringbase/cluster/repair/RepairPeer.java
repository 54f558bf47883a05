package io.ringbase.cluster.repair;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;

/**
 * Another node as the {@link AntiEntropyRepair} driver sees it: its {@link RepairSource} and its write
 * path, reached asynchronously (over the internal HTTP API in a cluster, in process in tests).
 *
 * <p>Failures complete the future exceptionally with a {@link ReplicaException}, with the meanings
 * given in {@link io.ringbase.cluster.replication.Replica}: {@code Unreachable} and {@code Timeout}
 * make the driver give up on the peer for this run, {@code Failed} only on the range at hand.
 */
public interface RepairPeer {

    /** The node this is. */
    NodeId node();

    /** The peer's {@link RepairSource#tree} for {@code range} and the keys it shares with {@code requester}. */
    CompletableFuture<MerkleTree> tree(int range, NodeId requester);

    /** The peer's {@link RepairSource#entries} page (same arguments, {@code maxBytes} in encoded bytes). */
    CompletableFuture<EntryPage> entries(int range, NodeId requester, BitSet leaves, byte[] startKey, int maxBytes);

    /**
     * Stores {@code entry} on the peer as {@link io.ringbase.cluster.replication.Replica#write} does: with
     * its version and expiry as given, an older version changing nothing.
     */
    CompletableFuture<Void> write(Entry entry);
}
