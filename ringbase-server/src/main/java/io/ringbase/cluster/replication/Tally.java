package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.kv.QuorumException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Counts the answers to the calls of one quorum step (a read, a write, or a quorum read's write-back) and
 * completes {@link #result} once {@code ack} replicas count, or fails it with
 * {@link QuorumException.NotEnoughAnswers} as soon as so many calls failed that {@code ack} is out of
 * reach. Thread-safe: answers arrive on any thread; {@link #result} completes on the thread of the
 * deciding answer.
 *
 * @param <T> what one answer carries (an entry read, a write result)
 */
final class Tally<T> {

    /** How a call failed: no answer in time (the call may have been applied) or an error. */
    enum Kind {
        TIMEOUT,
        FAILED
    }

    /** One replica's answer. */
    record Answer<T>(NodeId node, T value) {}

    private final int ack;
    private final int from;
    private final int possible;
    private final int held;
    private int sent;
    private boolean decided;
    /** The first answers that made {@code ack}, in arrival order (held ones not included). */
    final CompletableFuture<List<Answer<T>>> result = new CompletableFuture<>();

    private final List<Answer<T>> answers;
    private List<Answer<T>> firstAck;
    private int timeouts;
    private int failures;
    /** Called once with every answer once every call has answered or failed (if any answered). */
    volatile Consumer<List<Answer<T>>> onAllAnswered;

    /** A tally of {@code sent} calls of which {@code ack} must answer; {@code from} is for messages. */
    Tally(int ack, int from, int sent) {
        this(ack, from, sent, 0);
    }

    /**
     * A tally that already counts {@code held} replicas toward {@code ack} (a quorum read's write-back:
     * the replicas that answered with the newest entry hold it already) and needs {@code ack - held} of
     * its {@code sent} calls to answer.
     */
    Tally(int ack, int from, int sent, int held) {
        this(ack, from, sent, held, sent);
    }

    private Tally(int ack, int from, int possible, int held, int sent) {
        this.ack = ack;
        this.from = from;
        this.possible = possible;
        this.held = held;
        this.sent = sent;
        this.answers = new ArrayList<>(Math.max(possible, 1)); // sized once: the default grows to 10 slots
        if (held >= ack) {
            decided = true;
            result.complete(List.of());
        } else if (possible < ack - held) {
            decided = true;
            result.completeExceptionally(new QuorumException.NotEnoughAnswers(ack, from, held, 0, 0));
        }
    }

    /**
     * A tally of up to {@code possible} calls sent one by one, each announced by {@link #claimSend}: a
     * read that asks more replicas only as needed ({@link SpeculativeRetry}). Calls never sent count as
     * still possible answers, so it fails only once {@code ack} is out of reach of all {@code possible}.
     */
    static <T> Tally<T> deferred(int ack, int from, int possible) {
        return new Tally<>(ack, from, possible, 0, 0);
    }

    /**
     * Announces one more call, before it is sent; {@code false} (send nothing) once {@link #result} is
     * decided, so {@link #onAllAnswered} sees every call sent.
     */
    synchronized boolean claimSend() {
        if (decided || sent == possible) {
            return false;
        }
        sent++;
        return true;
    }

    /** Whether {@link #result} is decided (complete or failed). */
    synchronized boolean decided() {
        return decided;
    }

    /** The answers that made {@code ack} (as {@link #result} completed with), or {@code null} before. */
    synchronized List<Answer<T>> firstAck() {
        return firstAck;
    }

    void answer(NodeId node, T value) {
        List<Answer<T>> first = null;
        List<Answer<T>> all = null;
        synchronized (this) {
            answers.add(new Answer<>(node, value));
            if (held + answers.size() == ack && !decided) {
                first = List.copyOf(answers);
                firstAck = first;
                decided = true;
            }
            if (decided && answers.size() + timeouts + failures == sent && onAllAnswered != null) {
                all = List.copyOf(answers); // copied only for a listener: most tallies have none
            }
        }
        if (first != null) {
            result.complete(first);
        }
        allAnswered(all);
    }

    void failed(Kind kind) {
        QuorumException lost = null;
        List<Answer<T>> all = null;
        synchronized (this) {
            if (kind == Kind.TIMEOUT) {
                timeouts++;
            } else {
                failures++;
            }
            if (timeouts + failures == possible - (ack - held) + 1) { // ack answers are now out of reach
                lost = new QuorumException.NotEnoughAnswers(ack, from, held + answers.size(), timeouts, failures);
                decided = true;
            }
            if (decided && answers.size() + timeouts + failures == sent && onAllAnswered != null) {
                all = List.copyOf(answers); // copied only for a listener: most tallies have none
            }
        }
        if (lost != null) {
            result.completeExceptionally(lost);
        }
        allAnswered(all);
    }

    private void allAnswered(List<Answer<T>> all) {
        Consumer<List<Answer<T>>> callback = onAllAnswered;
        if (all != null && callback != null && !all.isEmpty()) {
            callback.accept(all);
        }
    }
}
