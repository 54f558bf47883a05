package io.ringbase.cluster.streaming;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;

/**
 * A {@link StreamSource} in process, answering synchronously; it fails the requests whose 0-based
 * number {@code fails} accepts, and records the start key of every request.
 */
final class LocalStreamPeer implements StreamPeer {

    private final StreamSource source;
    private final NodeId node;
    private final IntPredicate fails;
    final List<String> starts = new ArrayList<>();

    LocalStreamPeer(StreamSource source, NodeId node, IntPredicate fails) {
        this.source = source;
        this.node = node;
        this.fails = fails;
    }

    @Override
    public NodeId node() {
        return node;
    }

    @Override
    public CompletableFuture<EntryPage> entries(StreamPlan plan, byte[] startKey, int maxBytes) {
        int request = starts.size();
        starts.add(HexFormat.of().formatHex(startKey));
        if (fails.test(request)) {
            return CompletableFuture.failedFuture(new java.io.IOException("injected failure of request " + request));
        }
        try {
            return CompletableFuture.completedFuture(source.entries(plan, startKey, maxBytes));
        } catch (IllegalArgumentException e) { // what the server answers 400
            return CompletableFuture.failedFuture(new StreamRefusedException(e.getMessage()));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
