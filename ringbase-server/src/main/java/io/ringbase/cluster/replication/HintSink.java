package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;

/**
 * Where the coordinator leaves a write that a replica missed (hinted handoff, Dynamo §4.6). Must not
 * block: the coordinator calls it from event loop threads.
 */
@FunctionalInterface
public interface HintSink {

    /**
     * Keeps {@code entry} for delivery to {@code target} when it answers again (best effort, bounded).
     *
     * @return completes (never exceptionally) once the hint is stored as durably as the sink's store
     *     makes writes (its WAL policy), or was dropped (a full queue, the store's bounds, an error), so
     *     the coordinator can hold its answer until then: a crash after the answer loses no hint that
     *     was already known to be needed. Callbacks on it must not block.
     */
    CompletableFuture<Void> hint(NodeId target, Entry entry);

    /** Drops every hint (for tests and single nodes). */
    HintSink NONE = (target, entry) -> CompletableFuture.completedFuture(null);
}
