package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Tally.Answer;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read repair (Dynamo §4.7): writing the newest entry a read saw back to the replicas that answered with
 * something older. Two kinds:
 *
 * <ul>
 *   <li><b>Before answering</b> ({@link #beforeAnswering}), for quorum reads ({@code ack > from/2}) whose
 *       answers differ: the read's answer waits until {@code ack} replicas hold the newest entry (or a
 *       newer one), as the write phase of a read in Attiya, Bar-Noy and Dolev's register emulation ("Sharing
 *       Memory Robustly in Message-Passing Systems", JACM 1995). So once a quorum read has returned an
 *       entry, every later quorum read (with the same {@code from}) returns it or a newer one.</li>
 *   <li><b>In the background</b> ({@link #inBackground}), for every other read, once all replicas asked
 *       have answered: best effort, dropped when the background queue is full (anti-entropy catches up).</li>
 * </ul>
 *
 * <p>Write-backs keep the entry's version, so they are idempotent and never win over a newer write.
 * Thread-safe.
 */
final class ReadRepair {

    private static final Logger log = LoggerFactory.getLogger(ReadRepair.class);

    private final Function<NodeId, Replica> replicas;
    private final BiFunction<NodeId, Throwable, Tally.Kind> classify;
    private final Liveness liveness;
    private final Executor background;
    private final AtomicLong writes = new AtomicLong();

    /**
     * @param replicas   the replica of each node
     * @param classify   how a failed call counts (and marks the failure detector)
     * @param liveness   marked up by every successful write-back
     * @param background runs {@link #inBackground} writes; may reject them
     */
    ReadRepair(
            Function<NodeId, Replica> replicas,
            BiFunction<NodeId, Throwable, Tally.Kind> classify,
            Liveness liveness,
            Executor background) {
        this.replicas = replicas;
        this.classify = classify;
        this.liveness = liveness;
        this.background = background;
    }

    /** Read-repair writes started so far, of both kinds. */
    long writes() {
        return writes.get();
    }

    /**
     * The newest of {@code answers} ({@link Entry#compareNewness}), or {@code null} if none has an entry.
     */
    static Entry newest(List<Answer<Entry>> answers) {
        Entry best = null;
        for (Answer<Entry> a : answers) {
            Entry e = a.value();
            if (e != null && (best == null || Entry.compareNewness(e, best) > 0)) {
                best = e;
            }
        }
        return best;
    }

    /** Whether {@code a} is older than {@code newest} (a missing entry is older than any). */
    private static boolean stale(Entry newest, Entry a) {
        return newest != null && (a == null || Entry.compareNewness(newest, a) > 0);
    }

    /** Whether every answer holds the same entry (or none does). */
    static boolean agree(List<Answer<Entry>> answers) {
        Entry newest = newest(answers);
        for (Answer<Entry> a : answers) {
            if (stale(newest, a.value())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The answer of a quorum read: the newest of {@code answers} (its first {@code ack} answers), once
     * {@code ack} replicas hold it. The replicas whose answer is the newest count at once; the newest is
     * written to every other replica in {@code sentTo} (the stale answerers and those that have not
     * answered yet, as ABD writes to all), and each acknowledgement counts, also one reporting a newer
     * version (it holds more than the newest, which is as good for later reads). Fails with
     * {@link QuorumException.NotEnoughAnswers} if {@code ack} cannot be reached.
     *
     * @param sentTo every replica the read was sent to
     */
    CompletableFuture<Entry> beforeAnswering(List<Answer<Entry>> answers, List<NodeId> sentTo, int ack, int from) {
        Entry newest = newest(answers);
        if (agree(answers)) {
            return CompletableFuture.completedFuture(newest);
        }
        List<NodeId> holders = new ArrayList<>();
        for (Answer<Entry> a : answers) {
            if (!stale(newest, a.value())) {
                holders.add(a.node());
            }
        }
        List<NodeId> targets = new ArrayList<>();
        for (NodeId n : sentTo) {
            if (!holders.contains(n)) {
                targets.add(n);
            }
        }
        Tally<Long> acks = new Tally<>(ack, from, targets.size(), holders.size());
        for (NodeId t : targets) {
            writes.incrementAndGet();
            CompletableFuture<Long> call;
            try {
                call = replicas.apply(t).writeChecked(newest);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            var _ = call.whenComplete((stored, failure) -> {
                if (failure == null) {
                    liveness.markAnswered(t);
                    acks.answer(t, stored);
                } else {
                    log.debug(
                            "read repair of {} before answering failed: {}",
                            t,
                            Coordinator.unwrap(failure).toString());
                    acks.failed(classify.apply(t, failure));
                }
            });
        }
        return acks.result.thenApply(ignored -> newest);
    }

    /** Writes the newest of {@code answers} back to the replicas that answered with something older, on {@code background}. */
    void inBackground(List<Answer<Entry>> answers) {
        Entry newest = newest(answers);
        for (Answer<Entry> a : answers) {
            if (stale(newest, a.value())) {
                writes.incrementAndGet();
                NodeId target = a.node();
                try {
                    background.execute(() -> {
                        var _ = replicas.apply(target).write(newest).whenComplete((v, failure) -> {
                            if (failure != null) {
                                log.debug(
                                        "read repair of {} failed: {}",
                                        target,
                                        Coordinator.unwrap(failure).toString());
                            }
                        });
                    });
                } catch (RejectedExecutionException e) {
                    log.debug("read repair to {} dropped: background queue full", target);
                }
            }
        }
    }
}
