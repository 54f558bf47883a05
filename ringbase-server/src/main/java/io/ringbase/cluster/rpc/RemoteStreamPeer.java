package io.ringbase.cluster.rpc;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.streaming.StreamPeer;
import io.ringbase.cluster.streaming.StreamPlan;
import io.ringbase.cluster.streaming.StreamPlanCodec;
import io.ringbase.cluster.streaming.StreamRefusedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A stream's source on another node, over {@link InternalProtocol#STREAM}. A 400 (the plan refused)
 * completes the future with a {@link StreamRefusedException}, other failures with a
 * {@link io.ringbase.cluster.replication.ReplicaException} (wrapped). Non-blocking; thread-safe.
 */
public final class RemoteStreamPeer implements StreamPeer {

    private final RemoteReplica replica;
    private final long callTimeoutMs;

    /**
     * @param replica       the source, as a replica of the shared client
     * @param callTimeoutMs deadline of one page request, ms ({@code StreamOptions#callTimeoutMs}): a page
     *                      takes a scan past every key the plan does not want, far longer than a replica read
     */
    public RemoteStreamPeer(RemoteReplica replica, long callTimeoutMs) {
        this.replica = replica;
        this.callTimeoutMs = callTimeoutMs;
    }

    @Override
    public NodeId node() {
        return replica.node();
    }

    @Override
    public CompletableFuture<EntryPage> entries(StreamPlan plan, byte[] startKey, int maxBytes) {
        String uri = InternalProtocol.STREAM + "?start=" + InternalProtocol.hex(startKey) + "&max=" + maxBytes;
        return replica.call(HttpMethod.POST, uri, StreamPlanCodec.encode(plan), callTimeoutMs)
                .thenApply(r -> {
                    if (r.status() == 400) { // the plan itself: asking again cannot help
                        throw new CompletionException(new StreamRefusedException(
                                RemoteReplica.failure(node(), "POST stream", r).getMessage()));
                    }
                    if (r.status() != 200) {
                        throw replica.failed("POST stream", r);
                    }
                    return replica.decodePage(r);
                });
    }

    @Override
    public String toString() {
        return "RemoteStreamPeer[" + node() + "]";
    }
}
