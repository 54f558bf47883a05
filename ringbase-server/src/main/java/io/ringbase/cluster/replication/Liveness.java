package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A simple failure detector: a node is down from a call that found it unreachable until a call (or a
 * probe) to it succeeds. It is a belief, used to order and skip replicas; the {@link Coordinator}
 * probes believed-down replicas before it refuses a request for want of them
 * ({@link QuorumException.Unavailable}). A prober ({@code server.Node}) calls, every
 * {@link #PROBE_INTERVAL_MS}, the nodes believed down and those that have answered nothing for a second,
 * so nodes come back, and dead ones are noticed, without client traffic.
 *
 * <p>Apart from up or down, a node may be <b>unwritable</b>: it answers, but its ping said its engine
 * cannot take writes (a failed WAL, a closing engine: {@link Replica#ping()}). It stays up for reads and
 * counts as down for writes until a ping says it can write again; the prober pings unwritable nodes
 * every {@link #PROBE_INTERVAL_MS} like down ones. Thread-safe, lock-free.
 */
public final class Liveness {

    /** How often down nodes are probed (ms). */
    public static final long PROBE_INTERVAL_MS = 500;

    private final AtomicLongArray downSinceMs;
    private final AtomicReferenceArray<String> unwritable; // the reason, null when writable

    public Liveness(int nodes) {
        this.downSinceMs = new AtomicLongArray(nodes);
        this.unwritable = new AtomicReferenceArray<>(nodes);
    }

    /** Whether {@code node} is up and not known to be unable to write. */
    public boolean isUpForWrites(NodeId node) {
        return isUp(node) && unwritable.get(node.index()) == null;
    }

    /** Why {@code node}'s last ping said it cannot write, or null if it can (or never said otherwise). */
    public String unwritableReason(NodeId node) {
        return unwritable.get(node.index());
    }

    /**
     * Records what a ping of {@code node} answered: {@code null} if it can take writes, else its reason.
     *
     * @return whether that changed the node's writability
     */
    public boolean markWritable(NodeId node, String unwritableReason) {
        String before = unwritable.getAndSet(node.index(), unwritableReason);
        return (before == null) != (unwritableReason == null);
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
