package io.ringbase.cluster.rpc;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the calls {@link ReplicaClient} makes to each node and how they ended, for metrics and the
 * status page. Counters run since the client was made. Thread-safe; recording is a few uncontended
 * {@link LongAdder} increments and one clock read per call.
 */
public final class PeerCallStats {

    /**
     * One node's counters.
     *
     * @param calls       calls sent (every kind: batches, entry reads and writes, scans, probes, repair)
     * @param ok          calls answered with any status (the node was reached)
     * @param timeouts    calls without a complete answer within the client's timeout
     * @param unreachable calls for which no connection could be made
     * @param failed      calls whose connection broke or that were refused before sending
     * @param lastAnswerMs Unix ms of the last answer, 0 if none yet
     */
    public record Snapshot(long calls, long ok, long timeouts, long unreachable, long failed, long lastAnswerMs) {}

    /** Live counters of one node. */
    static final class Counters {
        final LongAdder calls = new LongAdder();
        final LongAdder ok = new LongAdder();
        final LongAdder timeouts = new LongAdder();
        final LongAdder unreachable = new LongAdder();
        final LongAdder failed = new LongAdder();
        volatile long lastAnswerMs;
        private final TimeSource time;

        Counters(TimeSource time) {
            this.time = time;
        }

        void answered() {
            ok.increment();
            lastAnswerMs = time.currentTimeMillis();
        }

        void failed(Throwable cause) {
            switch (cause) {
                case ReplicaException.Timeout t -> timeouts.increment();
                case ReplicaException.Unreachable u -> unreachable.increment();
                default -> failed.increment();
            }
        }
    }

    private final AtomicReferenceArray<Counters> byIndex = new AtomicReferenceArray<>(HybridLogicalClock.MAX_NODES);
    private final TimeSource time;

    /** @param time the wall clock {@link Snapshot#lastAnswerMs()} is read on */
    public PeerCallStats(TimeSource time) {
        this.time = time;
    }

    /** The counters of {@code node}, made on first use. */
    Counters of(NodeId node) {
        Counters c = byIndex.get(node.index());
        if (c == null) {
            byIndex.compareAndSet(node.index(), null, new Counters(time));
            c = byIndex.get(node.index());
        }
        return c;
    }

    /** Counts a call sent to {@code node} by another transport (the binary protocol). */
    public void sent(NodeId node) {
        of(node).calls.increment();
    }

    /** Counts an answer from {@code node}. */
    public void answered(NodeId node) {
        of(node).answered();
    }

    /** Counts a call to {@code node} that ended with {@code cause} (a {@link ReplicaException}). */
    public void failed(NodeId node, Throwable cause) {
        of(node).failed(cause);
    }

    /** The counters of {@code node} now (all zero if it was never called). */
    public Snapshot snapshot(NodeId node) {
        Counters c = byIndex.get(node.index());
        if (c == null) {
            return new Snapshot(0, 0, 0, 0, 0, 0);
        }
        return new Snapshot(
                c.calls.sum(), c.ok.sum(), c.timeouts.sum(), c.unreachable.sum(), c.failed.sum(), c.lastAnswerMs);
    }
}
