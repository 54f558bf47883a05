package io.ringbase.cluster.wire;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One call of the binary protocol: what it asks, its deadline and the one future the caller holds.
 * Completed once, on its connection's event loop; the future is the only allocation of its kind per
 * call (no chain of stages, no timer task).
 */
final class Call {

    /** What a call asks; its answer's shape follows from it. */
    enum Kind {
        READ,
        VERSION,
        WRITE,
        PING,
        /** A Paxos message ({@code key} holds its bytes); answered with the reply's bytes. */
        PAXOS
    }

    final NodeId node;
    final Kind kind;
    byte @Nullable [] key; // READ, VERSION; the message of PAXOS; dropped once encoded

    @Nullable
    Entry entry; // WRITE; dropped once encoded

    final long deadlineNanos;
    final CompletableFuture<Object> result = new CompletableFuture<>();
    private final PeerCallStats stats;
    int id; // set when sent, on the loop

    @Nullable
    ClientConnection connection; // set when sent, on the loop

    Call(
            NodeId node,
            Kind kind,
            byte @Nullable [] key,
            @Nullable Entry entry,
            long deadlineNanos,
            PeerCallStats stats) {
        this.node = node;
        this.kind = kind;
        this.key = key;
        this.entry = entry;
        this.deadlineNanos = deadlineNanos;
        this.stats = stats;
        stats.sent(node);
    }

    boolean isDone() {
        return result.isDone();
    }

    // counted before the future completes, so that whoever waits on it sees the counters moved; a call is
    // completed on its connection's loop only, so the isDone check does not race

    void succeed(@Nullable Object value) {
        if (!result.isDone()) {
            stats.answered(node);
            result.complete(value);
        }
    }

    /** Fails the call with an error the replica answered: it was reached. */
    void answeredFailure(ReplicaException e) {
        if (!result.isDone()) {
            stats.answered(node);
            result.completeExceptionally(e);
        }
    }

    /** Fails the call without an answer (timeout, broken connection). */
    void fail(ReplicaException e) {
        if (!result.isDone()) {
            stats.failed(node, e);
            result.completeExceptionally(e);
        }
    }

    /** The future as the caller's type; a call of {@code kind} completes with values of that type only. */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> future() {
        return (CompletableFuture<T>) (CompletableFuture<?>) result;
    }
}
