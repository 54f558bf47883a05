package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.kv.QuorumException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * every {@link #PROBE_INTERVAL_MS} like down ones.
 *
 * <p>A node up may also be <b>slow</b>: its last {@link #SLOW_AFTER_TIMEOUTS} data calls (reads,
 * writes) all timed out. Reads then go to other replicas first and reach it only speculatively or when
 * the others fail ({@link SpeculativeRetry}); writes still go to it. One data call it answers in time
 * ends that ({@link #markAnswered}); a ping does not, since a node can answer pings while its reads
 * crawl. Thread-safe, lock-free.
 */
public final class Liveness {

    private static final Logger log = LoggerFactory.getLogger(Liveness.class);

    /** Data calls in a row that must time out before a node counts as slow. */
    public static final int SLOW_AFTER_TIMEOUTS = 3;

    /** How often down nodes are probed (ms). */
    public static final long PROBE_INTERVAL_MS = 500;

    private final AtomicLongArray downSinceMs;
    private final AtomicReferenceArray<String> unwritable; // the reason, null when writable
    private final AtomicIntegerArray timeoutsInARow;

    public Liveness(int nodes) {
        this.downSinceMs = new AtomicLongArray(nodes);
        this.unwritable = new AtomicReferenceArray<>(nodes);
        this.timeoutsInARow = new AtomicIntegerArray(nodes);
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

    /** Records a call that got an answer (a ping, or any other). */
    public void markUp(NodeId node) {
        downSinceMs.set(node.index(), 0);
    }

    /** Records a data call (read, write) that {@code node} answered within the replica timeout: up, not slow. */
    public void markAnswered(NodeId node) {
        markUp(node);
        int i = node.index();
        if (timeoutsInARow.get(i) != 0 && timeoutsInARow.getAndSet(i, 0) >= SLOW_AFTER_TIMEOUTS) {
            log.info("node {} answers in time again; reads go to it as to any replica", node);
        }
    }

    /** Records a data call to {@code node} that got no answer within the replica timeout. */
    public void markTimedOut(NodeId node) {
        if (timeoutsInARow.incrementAndGet(node.index()) == SLOW_AFTER_TIMEOUTS) {
            log.warn(
                    "node {} is slow: its last {} calls timed out; reads go to other replicas first until it "
                            + "answers one in time",
                    node,
                    SLOW_AFTER_TIMEOUTS);
        }
    }

    /** Whether {@code node}'s last {@link #SLOW_AFTER_TIMEOUTS} data calls all timed out. */
    public boolean isSlow(NodeId node) {
        return timeoutsInARow.get(node.index()) >= SLOW_AFTER_TIMEOUTS;
    }

    /** Unix ms since when {@code node} is down, or 0 if up. */
    public long downSinceMs(NodeId node) {
        return downSinceMs.get(node.index());
    }
}
