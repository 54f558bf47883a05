package io.ringbase.cluster.replication;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.kv.QuorumException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node believes of its peers, and the pings that correct it: which nodes are up (this node
 * always), which can take writes, and the probes ({@link Replica#ping()}) that mark a node up again,
 * writable or not, as its answer says. One probe is in flight per node at a time, shared by every request
 * and round that needs it. The coordinator probes the replicas a request needs before refusing it
 * ({@link #afterProbing}); the node's prober runs {@link #probeRound} every
 * {@link Liveness#PROBE_INTERVAL_MS}, so a dead or returning peer is noticed without client traffic.
 * Thread-safe; probes complete on the replica client's event loops.
 */
public final class PeerProbes {

    private static final Logger log = LoggerFactory.getLogger(PeerProbes.class);

    /** A peer that answered nothing for this long is probed even while believed up (ms). */
    public static final long IDLE_PROBE_AFTER_MS = 1_000;

    private final NodeId self;
    private final Supplier<List<Replica>> replicas;
    private final IntFunction<Replica> byIndex;
    private final Liveness liveness;
    private final TimeSource time;
    /** The probe in flight to each node, by node index ({@code null}: none). */
    private final AtomicReferenceArray<CompletableFuture<Void>> probes;

    /**
     * @param self     this node, always up
     * @param replicas the replicas of the nodes of the current placement (read each time: it changes)
     * @param byIndex  the replica of a node index
     * @param liveness the failure detector's state, which probes update
     * @param time     the wall clock a node's going down is recorded on
     */
    PeerProbes(
            NodeId self,
            Supplier<List<Replica>> replicas,
            IntFunction<Replica> byIndex,
            Liveness liveness,
            TimeSource time) {
        this.self = self;
        this.replicas = replicas;
        this.byIndex = byIndex;
        this.liveness = liveness;
        this.time = time;
        this.probes = new AtomicReferenceArray<>(HybridLogicalClock.MAX_NODES);
    }

    /** This node always counts as up; the others as the failure detector says. */
    boolean isUp(NodeId node) {
        return node.equals(self) || liveness.isUp(node);
    }

    /** Whether a write may be sent to {@code node}: up and not known to be unable to write (this node always). */
    boolean isUpForWrites(NodeId node) {
        return node.equals(self) || liveness.isUpForWrites(node);
    }

    /** The replicas of every node held up, by node index. */
    List<Replica> upReplicas() {
        List<Replica> all = replicas.get();
        List<Replica> up = new ArrayList<>(all.size());
        for (Replica r : all) {
            if (isUp(r.node())) {
                up.add(r);
            }
        }
        return up;
    }

    /**
     * The replicas up, but when fewer than {@code needed} are believed up the believed-down ones are probed
     * first, so a node that is back counts at once. Completes on the caller or a client event loop.
     */
    CompletableFuture<List<Replica>> upReplicas(int needed) {
        List<Replica> up = upReplicas();
        if (up.size() >= needed) {
            return CompletableFuture.completedFuture(up);
        }
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (Replica r : replicas.get()) {
            if (!isUp(r.node())) {
                pending.add(probe(r.node()));
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(v -> upReplicas());
    }

    /** The {@code targets} up (or, {@code forWrites}, up and able to write), in their order. */
    List<NodeId> up(List<NodeId> targets, boolean forWrites) {
        List<NodeId> up = new ArrayList<>(targets.size());
        for (NodeId t : targets) {
            if (forWrites ? isUpForWrites(t) : isUp(t)) {
                up.add(t);
            }
        }
        return up;
    }

    /**
     * Probes the {@code targets} believed down (or, {@code forWrites}, unable to write), then runs
     * {@code send} with the ones up after that if they are at least {@code ack}, else fails with
     * {@link QuorumException.Unavailable} having sent nothing. {@code send} runs on {@code background}: the
     * probes complete on a client event loop, and the local replica's write may block.
     */
    <T> CompletableFuture<T> afterProbing(
            List<NodeId> targets,
            int ack,
            int from,
            boolean forWrites,
            Executor background,
            Function<List<NodeId>, CompletableFuture<T>> send) {
        List<CompletableFuture<Void>> pending = new ArrayList<>(targets.size());
        for (NodeId t : targets) {
            if (forWrites ? !isUpForWrites(t) : !isUp(t)) {
                pending.add(probe(t));
            }
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        var _ = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .whenComplete((v, ignored) -> {
                    List<NodeId> up = up(targets, forWrites);
                    if (up.size() < ack) {
                        result.completeExceptionally(new QuorumException.Unavailable(ack, from, up.size()));
                        return;
                    }
                    try {
                        background.execute(() -> {
                            CompletableFuture<T> sent;
                            try {
                                sent = send.apply(up);
                            } catch (RuntimeException e) { // else nothing would ever complete the result
                                sent = CompletableFuture.failedFuture(e);
                            }
                            var _ = sent.whenComplete((value, failure) -> {
                                if (failure == null) {
                                    result.complete(value);
                                } else {
                                    result.completeExceptionally(unwrap(failure));
                                }
                            });
                        });
                    } catch (RejectedExecutionException e) {
                        log.warn(
                                "a request that needed a node back from down was refused: the background queue is full");
                        result.completeExceptionally(new QuorumException.Unavailable(ack, from, up.size()));
                    }
                });
        return result;
    }

    /**
     * The probe of {@code node} in flight, or a new one: completes normally once it is done, whatever its
     * outcome. An answer marks the node up, and writable or not as its ping says; no answer (unreachable)
     * marks a node believed up down.
     */
    CompletableFuture<Void> probe(NodeId node) {
        int i = node.index();
        while (true) {
            CompletableFuture<Void> running = probes.get(i);
            if (running != null) {
                return running;
            }
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (!probes.compareAndSet(i, null, mine)) {
                continue;
            }
            boolean wasUp = liveness.isUp(node);
            CompletableFuture<String> call;
            try {
                call = byIndex.apply(i).ping();
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            var _ = call.whenComplete((unwritable, failure) -> {
                if (failure == null) {
                    if (!liveness.isUp(node)) {
                        log.info("node {} answers again", node);
                    }
                    liveness.markUp(node);
                    if (liveness.markWritable(node, unwritable)) {
                        logWritability(node, unwritable);
                    }
                } else if (wasUp && unwrap(failure) instanceof ReplicaException.Unreachable) {
                    log.warn("node {} is unreachable", node);
                    liveness.markDown(node, time.currentTimeMillis());
                }
                probes.compareAndSet(i, mine, null);
                mine.complete(null);
            });
            return mine;
        }
    }

    /**
     * One round of the node's prober: pings every node marked down or unwritable, and every node believed up
     * that has not answered any call for {@link #IDLE_PROBE_AFTER_MS}.
     *
     * @param lastAnswerMs when a node last answered any call, Unix ms (0: never)
     */
    public void probeRound(ToLongFunction<NodeId> lastAnswerMs) {
        long now = time.currentTimeMillis();
        for (Replica r : replicas.get()) {
            NodeId node = r.node();
            if (node.equals(self)) {
                continue;
            }
            if (liveness.isUp(node)
                    && liveness.unwritableReason(node) == null
                    && now - lastAnswerMs.applyAsLong(node) < IDLE_PROBE_AFTER_MS) {
                continue;
            }
            var _ = probe(node);
        }
    }

    /**
     * How a replica call's failure counts: an unreachable node is marked down, a timeout noted (three in a
     * row make the node slow).
     */
    Tally.Kind classify(NodeId node, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ReplicaException.Unreachable) {
            liveness.markDown(node, time.currentTimeMillis());
            return Tally.Kind.FAILED;
        }
        if (cause instanceof ReplicaException.Timeout) {
            liveness.markTimedOut(node);
            return Tally.Kind.TIMEOUT;
        }
        return Tally.Kind.FAILED;
    }

    /** One line when a node's ping changes whether it can take writes. */
    static void logWritability(NodeId node, String unwritable) {
        if (unwritable == null) {
            log.info("node {} can take writes again", node);
        } else {
            log.warn(
                    "node {} cannot take writes ({}); it counts as down for writes until a ping says otherwise",
                    node,
                    unwritable);
        }
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
