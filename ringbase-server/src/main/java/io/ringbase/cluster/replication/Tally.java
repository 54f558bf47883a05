package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
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
    enum Kind { TIMEOUT, FAILED }

    /** One replica's answer. */
    record Answer<T>(NodeId node, T value) {
    }

    private final int ack;
    private final int from;
    private final int sent;
    private final int held;
    /** The first answers that made {@code ack}, in arrival order (held ones not included). */
    final CompletableFuture<List<Answer<T>>> result = new CompletableFuture<>();
    private final List<Answer<T>> answers = new ArrayList<>();
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
        this.ack = ack;
        this.from = from;
        this.sent = sent;
        this.held = held;
        if (held >= ack) {
            result.complete(List.of());
        } else if (sent < ack - held) {
            result.completeExceptionally(new QuorumException.NotEnoughAnswers(ack, from, held, 0, 0));
        }
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
            if (held + answers.size() == ack) {
                first = List.copyOf(answers);
                firstAck = first;
            }
            if (answers.size() + timeouts + failures == sent) {
                all = List.copyOf(answers);
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
            if (timeouts + failures == sent - (ack - held) + 1) { // ack answers are now out of reach
                lost = new QuorumException.NotEnoughAnswers(ack, from, held + answers.size(), timeouts, failures);
            }
            if (answers.size() + timeouts + failures == sent) {
                all = List.copyOf(answers);
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
