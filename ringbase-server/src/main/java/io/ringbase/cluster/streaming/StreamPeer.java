package io.ringbase.cluster.streaming;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import java.util.concurrent.CompletableFuture;

/**
 * The sender of a stream as a {@link StreamSession} sees it: its {@link StreamSource}, reached
 * asynchronously (over the internal HTTP API in a cluster, in process in tests). Failures complete the
 * future exceptionally: with a {@link StreamRefusedException} if the source refuses the plan itself, else
 * (over the network) with a {@link io.ringbase.cluster.replication.ReplicaException}, which may pass.
 */
public interface StreamPeer {

    /** The node this is: the plan's source. */
    NodeId node();

    /** The peer's {@link StreamSource#entries} page (same arguments, {@code maxBytes} in encoded bytes). */
    CompletableFuture<EntryPage> entries(StreamPlan plan, byte[] startKey, int maxBytes);
}
