package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A simple failure detector: a node is down from a call that found it unreachable until a call (or a
 * probe) to it succeeds. It is a belief, used to order and skip replicas; the {@link Coordinator}
 * probes believed-down replicas before it refuses a request for want of them
 * ({@link QuorumException.Unavailable}). A prober ({@code server.Node}) calls, every
 * {@link #PROBE_INTERVAL_MS}, the nodes believed down and those that have answered nothing for a second,
 * so nodes come back, and dead ones are noticed, without client traffic. Thread-safe, lock-free.
 */
public final class Liveness {

    /** How often down nodes are probed (ms). */
    public static final long PROBE_INTERVAL_MS = 500;

    private final AtomicLongArray downSinceMs;

    public Liveness(int nodes) {
        this.downSinceMs = new AtomicLongArray(nodes);
    }

    public boolean isUp(NodeId node) {
        return downSinceMs.get(node.index()) == 0;
    }

    /** Records a call that could not connect. */
    public void markDown(NodeId node, long nowMs) {
        downSinceMs.compareAndSet(node.index(), 0, Math.max(1, nowMs));
    }

    /** Records a call that got an answer. */
    public void markUp(NodeId node) {
        downSinceMs.set(node.index(), 0);
    }

    /** Unix ms since when {@code node} is down, or 0 if up. */
    public long downSinceMs(NodeId node) {
        return downSinceMs.get(node.index());
    }
}
