package io.ringbase.cluster.rpc;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.repair.MerkleTree;
import io.ringbase.cluster.repair.RepairPeer;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Another node's anti-entropy side over the internal API: {@link InternalProtocol#REPAIR_TREE} and
 * {@link InternalProtocol#REPAIR_ENTRIES}, and replica writes. Non-blocking; thread-safe.
 */
public final class RemoteRepairPeer implements RepairPeer {

    private static final byte[] EMPTY = new byte[0];

    private final RemoteReplica replica;
    private final long callTimeoutMs;

    /**
     * @param callTimeoutMs deadline of a tree or entries call, ms ({@code RepairOptions#callTimeoutMs}):
     *                      the peer builds a range's Merkle tree by scanning the whole range, which takes
     *                      far longer than a replica read at millions of keys, so the replica timeout
     *                      (about a second) does not apply to these calls
     */
    public RemoteRepairPeer(RemoteReplica replica, long callTimeoutMs) {
        this.replica = replica;
        this.callTimeoutMs = callTimeoutMs;
    }

    @Override
    public NodeId node() {
        return replica.node();
    }

    @Override
    public CompletableFuture<MerkleTree> tree(int range, NodeId requester) {
        String uri = InternalProtocol.REPAIR_TREE + "?range=" + range + "&requester=" + requester.index();
        return replica.call(HttpMethod.GET, uri, EMPTY, callTimeoutMs).thenApply(r -> {
            if (r.status() != 200) {
                throw replica.failed("GET repair tree", r);
            }
            try {
                return MerkleTree.fromBytes(r.body());
            } catch (IllegalArgumentException e) {
                throw new CompletionException(new ReplicaException.Failed(node(), "undecodable Merkle tree", e));
            }
        });
    }

    @Override
    public CompletableFuture<EntryPage> entries(
            int range, NodeId requester, BitSet leaves, byte[] startKey, int maxBytes) {
        String uri = InternalProtocol.REPAIR_ENTRIES + "?range=" + range + "&requester=" + requester.index() + "&start="
                + InternalProtocol.hex(startKey) + "&max=" + maxBytes;
        return replica.call(HttpMethod.POST, uri, MerkleTree.leafSetToBytes(leaves), callTimeoutMs)
                .thenApply(r -> {
                    if (r.status() != 200) {
                        throw replica.failed("POST repair entries", r);
                    }
                    return replica.decodePage(r);
                });
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        return replica.write(entry);
    }
}
