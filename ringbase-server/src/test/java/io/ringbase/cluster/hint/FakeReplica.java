package io.ringbase.cluster.hint;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A remote replica that is "down" (every call fails with {@link ReplicaException.Unreachable}) or "up"
 * (it stores what it is sent, newest version per key), switched by the test.
 */
final class FakeReplica implements Replica {

    private final NodeId node;
    private volatile boolean up;
    private volatile int downAfterWrites = -1;
    final List<Entry> received = new CopyOnWriteArrayList<>();
    final Map<String, Entry> newest = new ConcurrentHashMap<>();
    final AtomicInteger probes = new AtomicInteger();

    FakeReplica(NodeId node, boolean up) {
        this.node = node;
        this.up = up;
    }

    void up() {
        up = true;
    }

    void down() {
        up = false;
    }

    /** Goes down by itself once it has received {@code writes} writes (a node that dies mid-delivery). */
    void downAfterWrites(int writes) {
        downAfterWrites = writes;
    }

    @Override
    public NodeId node() {
        return node;
    }

    private <T> CompletableFuture<T> unreachable() {
        return CompletableFuture.failedFuture(new ReplicaException.Unreachable(node, new ConnectException("refused")));
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        return up
                ? CompletableFuture.completedFuture(newest.get(new String(key, StandardCharsets.UTF_8)))
                : unreachable();
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        if (received.size() == downAfterWrites) {
            downAfterWrites = -1;
            up = false;
        }
        if (!up) {
            return unreachable();
        }
        received.add(entry);
        newest.merge(new String(entry.key(), StandardCharsets.UTF_8), entry, Entry::newer);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
        return up ? CompletableFuture.completedFuture(new EntryPage(List.of(), null)) : unreachable();
    }

    @Override
    public CompletableFuture<Void> probe() {
        probes.incrementAndGet();
        return up ? CompletableFuture.completedFuture(null) : unreachable();
    }
}
