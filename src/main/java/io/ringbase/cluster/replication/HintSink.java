package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;

/**
 * Where the coordinator leaves a write that a replica missed (hinted handoff, Dynamo §4.6). Must not
 * block: the coordinator calls it from event loop threads.
 */
@FunctionalInterface
public interface HintSink {

    /** Keeps {@code entry} for delivery to {@code target} when it answers again (best effort, bounded). */
    void hint(NodeId target, Entry entry);

    /** Drops every hint (for tests and single nodes). */
    HintSink NONE = (target, entry) -> {
    };
}
