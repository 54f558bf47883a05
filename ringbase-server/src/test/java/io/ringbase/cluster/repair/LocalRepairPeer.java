package io.ringbase.cluster.repair;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link RepairPeer} that is another node in the same process: calls its {@link RepairSource} and
 * engine directly and returns completed futures; an {@link IOException} becomes
 * {@link ReplicaException.Failed}, as an error answer of a remote node would.
 */
final class LocalRepairPeer implements RepairPeer {

    private final RepairSource source;
    private final StorageEngine engine;

    LocalRepairPeer(RepairSource source, StorageEngine engine) {
        this.source = source;
        this.engine = engine;
    }

    @Override
    public NodeId node() {
        return source.self();
    }

    @Override
    public CompletableFuture<MerkleTree> tree(int range, NodeId requester) {
        try {
            // through the wire format, as the HTTP adapter will
            return CompletableFuture.completedFuture(
                    MerkleTree.fromBytes(source.tree(range, requester).toBytes()));
        } catch (IOException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<EntryPage> entries(
            int range, NodeId requester, BitSet leaves, byte[] startKey, int maxBytes) {
        try {
            BitSet sent = MerkleTree.leafSetFromBytes(MerkleTree.leafSetToBytes(leaves));
            return CompletableFuture.completedFuture(source.entries(range, requester, sent, startKey, maxBytes));
        } catch (IOException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        try {
            engine.apply(entry);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return failed(e);
        }
    }

    private <T> CompletableFuture<T> failed(IOException e) {
        return CompletableFuture.failedFuture(new ReplicaException.Failed(node(), "local call failed", e));
    }
}
