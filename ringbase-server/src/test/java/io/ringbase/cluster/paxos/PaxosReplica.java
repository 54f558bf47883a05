package io.ringbase.cluster.paxos;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A replica of the Paxos tests' in-memory nodes: it takes Paxos messages only, each answered by
 * {@code paxos} (which decides how the message travels), and is always up.
 */
final class PaxosReplica implements Replica {

    private final NodeId node;
    private final Function<byte[], CompletableFuture<byte[]>> paxos;

    PaxosReplica(NodeId node, Function<byte[], CompletableFuture<byte[]>> paxos) {
        this.node = node;
        this.paxos = paxos;
    }

    @Override
    public NodeId node() {
        return node;
    }

    @Override
    public CompletableFuture<byte[]> paxos(byte[] message) {
        return paxos.apply(message);
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> probe() {
        return CompletableFuture.completedFuture(null);
    }
}
