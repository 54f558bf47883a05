package io.ringbase.cluster.wire;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One call of the binary protocol: what it asks, its deadline, and itself the future the caller holds
 * (one object per call rather than a call and its future). Completed once, on its connection's event
 * loop; no chain of stages, no timer task.
 */
@SuppressWarnings("serial") // never serialized
final class Call extends CompletableFuture<Object> {

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

    // counted before the future completes, so that whoever waits on it sees the counters moved; a call is
    // completed on its connection's loop only, so the isDone check does not race

    void succeed(@Nullable Object value) {
        if (!isDone()) {
            stats.answered(node);
            complete(value);
        }
    }

    /** Fails the call with an error the replica answered: it was reached. */
    void answeredFailure(ReplicaException e) {
        if (!isDone()) {
            stats.answered(node);
            completeExceptionally(e);
        }
    }

    /** Fails the call without an answer (timeout, broken connection). */
    void fail(ReplicaException e) {
        if (!isDone()) {
            stats.failed(node, e);
            completeExceptionally(e);
        }
    }

    /** The future as the caller's type; a call of {@code kind} completes with values of that type only. */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> future() {
        return (CompletableFuture<T>) (CompletableFuture<?>) this;
    }
}
