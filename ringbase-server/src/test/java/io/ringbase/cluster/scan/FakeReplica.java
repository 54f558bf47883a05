package io.ringbase.cluster.scan;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A replica over an in-memory sorted map that answers {@link #scan} only, like the real one (entries in
 * {@code [start, end)}, tombstones and expired entries included, a page stops after the entry that
 * takes it to {@code maxBytes}). Test knobs: a {@link #completer} that completes page futures later on
 * another thread (or {@link #manual} completion by the test), a page size cap, and a failure on the
 * n-th page request. Counts requests in flight.
 */
class FakeReplica implements Replica {

    private final NodeId node;
    private final TreeMap<byte[], Entry> data = new TreeMap<>(Keys.ORDER);
    /** Completes page futures; {@code null} = at once, on the calling thread. */
    Executor completer;
    /** Page futures are left for the test to complete through {@link #completeNext}. */
    boolean manual;
    /** The page request (1-based) that fails, or 0 for none. */
    int failOnRequest;
    /** Overrides the caller's {@code maxBytes} if positive. */
    int pageBytesCap;

    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    /** Every page handed out, in order. */
    final List<EntryPage> pages = new CopyOnWriteArrayList<>();
    /** Manual mode: futures not yet completed, with their pages. */
    final List<Map.Entry<CompletableFuture<EntryPage>, EntryPage>> waiting = new CopyOnWriteArrayList<>();

    FakeReplica(int index) {
        this.node = new NodeId(index, "127.0.0.1", 7000 + index);
    }

    FakeReplica put(Entry e) {
        data.merge(e.key(), e, Entry::newer);
        return this;
    }

    @Override
    public NodeId node() {
        return node;
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
    public CompletableFuture<Void> probe() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
        int n = requests.incrementAndGet();
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        if (n == failOnRequest) {
            return finish(
                    new CompletableFuture<>(),
                    null,
                    new ReplicaException.Failed(node, "injected failure on page " + n, null));
        }
        int budget = pageBytesCap > 0 ? Math.min(pageBytesCap, maxBytes) : maxBytes;
        Map<byte[], Entry> range = end == null ? data.tailMap(start, true) : data.subMap(start, true, end, false);
        List<Entry> entries = new ArrayList<>();
        long bytes = 0;
        byte[] next = null;
        for (Entry e : range.values()) {
            if (bytes >= budget) {
                next = EntryPage.successor(entries.getLast().key());
                break;
            }
            entries.add(e);
            bytes += EntryBatchSource.sizeOf(e);
        }
        EntryPage page = new EntryPage(entries, next);
        pages.add(page);
        return finish(new CompletableFuture<>(), page, null);
    }

    private CompletableFuture<EntryPage> finish(CompletableFuture<EntryPage> f, EntryPage page, Throwable error) {
        Runnable complete = () -> {
            inFlight.decrementAndGet();
            if (error != null) {
                f.completeExceptionally(error);
            } else {
                f.complete(page);
            }
        };
        if (manual) {
            waiting.add(Map.entry(f, page == null ? new EntryPage(List.of(), null) : page));
        } else if (completer != null) {
            completer.execute(complete);
        } else {
            complete.run();
        }
        return f;
    }

    /** Manual mode: completes the oldest waiting page; false if none waits. */
    boolean completeNext() {
        if (waiting.isEmpty()) {
            return false;
        }
        var w = waiting.removeFirst();
        inFlight.decrementAndGet();
        w.getKey().complete(w.getValue());
        return true;
    }
}
