package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * Sends one read (or version read) to a key's replicas as it needs them, in order of preference
 * ({@link SpeculativeRetry}): a first set at once, then one more replica whenever one asked fails and
 * whenever a delay passes with the read undecided (a speculative retry, counted in {@code speculated}).
 * It stops sending once its {@link Tally} is decided, so the tally's {@link Tally#onAllAnswered} sees
 * every call it sent. Thread-safe: answers and timers arrive on any thread.
 *
 * @param <T> what one answer carries
 */
final class ReadFanout<T> {

    private final List<NodeId> order;
    private final NodeId self;
    private final Tally<T> tally;
    private final BiConsumer<ReadFanout<T>, NodeId> send;
    private final LongAdder speculated;
    private int next; // guarded by this

    /**
     * @param order      the replicas that may be asked, preferred first (every one up)
     * @param self       this node: of a first set, it is asked last, when the remote calls are on their way
     * @param tally      a {@link Tally#deferred} tally of {@code order.size()} possible calls
     * @param send       sends the call to one replica, and reports its outcome to {@link #answer} or
     *                   {@link #failed} of the fan-out it is given
     * @param speculated counts the calls sent because a delay passed
     */
    ReadFanout(
            List<NodeId> order,
            NodeId self,
            Tally<T> tally,
            BiConsumer<ReadFanout<T>, NodeId> send,
            LongAdder speculated) {
        this.order = order;
        this.self = self;
        this.tally = tally;
        this.send = send;
        this.speculated = speculated;
    }

    /**
     * Sends to the first {@code initial} replicas of the order (the remote ones, then this node), then,
     * unless {@code scheduler} is {@code null}, arms the speculative retry: one more replica after each
     * {@code delayNanos} while the read is undecided.
     */
    void start(int initial, Scheduler scheduler, long delayNanos) {
        List<NodeId> first = new ArrayList<>(initial);
        synchronized (this) {
            while (first.size() < initial && next < order.size() && tally.claimSend()) {
                first.add(order.get(next++));
            }
        }
        boolean toSelf = false;
        for (NodeId n : first) {
            if (n.equals(self)) {
                toSelf = true;
            } else {
                send.accept(this, n);
            }
        }
        if (toSelf) {
            send.accept(this, self);
        }
        if (scheduler != null && hasMore()) {
            arm(scheduler, delayNanos);
        }
    }

    /** Sends to the next replica in order, if any is left and the read is undecided; whether it did. */
    boolean sendNext() {
        NodeId n;
        synchronized (this) {
            if (next == order.size() || !tally.claimSend()) {
                return false;
            }
            n = order.get(next++);
        }
        send.accept(this, n);
        return true;
    }

    /** Counts {@code node}'s answer. */
    void answer(NodeId node, T value) {
        tally.answer(node, value);
    }

    /** Counts a call that failed, and asks the next replica in its place. */
    void failed(Tally.Kind kind) {
        tally.failed(kind);
        sendNext();
    }

    private synchronized boolean hasMore() {
        return next < order.size();
    }

    private void arm(Scheduler scheduler, long delayNanos) {
        scheduler.schedule(
                () -> {
                    if (!sendNext()) {
                        return;
                    }
                    speculated.increment();
                    if (hasMore()) {
                        arm(scheduler, delayNanos);
                    }
                },
                delayNanos);
    }
}
