package io.ringbase.faults;

import static org.awaitility.Awaitility.await;

import io.ringbase.faults.client.NodeApi;
import io.ringbase.faults.history.Op;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The reads of a run's final checks (register reads, set reads, scans), made once the cluster is healed:
 * each read that fails is retried every {@code retryIntervalMs} for up to {@code perReadMs}, and one
 * that still fails is a {@link Note.Severity#FAILURE} naming the key and the node. The run's retry
 * budget (ms, shared by every read) bounds the time a broken cluster costs: once a read has failed with it
 * spent, the remaining reads are not tried at all (each could wait out a client timeout) and are counted in
 * one failure note by {@link #finish}. Not thread-safe: the run's thread makes every final read.
 */
final class FinalReads {

    private final long perReadNanos;
    private final long retryIntervalMs;
    private final List<Note> notes;
    private long budgetLeftNanos;
    /** Set once a read failed with the budget (nearly) gone: the reads after it are not tried. */
    private boolean spent;

    private int retried;
    private int notTried;

    /**
     * Final reads with no retry spent yet.
     *
     * @param retryBudgetMs   the total time the run may spend retrying failed reads (ms)
     * @param perReadMs       the most time spent retrying one read (ms)
     * @param retryIntervalMs the pause between two attempts of one read (ms)
     * @param notes           where failures (and, from {@link #finish}, the figures) are noted
     * @throws IllegalArgumentException if a budget is negative or the interval not positive
     */
    FinalReads(long retryBudgetMs, long perReadMs, long retryIntervalMs, List<Note> notes) {
        if (retryBudgetMs < 0 || perReadMs < 0 || retryIntervalMs < 1) {
            throw new IllegalArgumentException("need retry budgets >= 0 ms and an interval >= 1 ms, got "
                    + retryBudgetMs + ", " + perReadMs + " and " + retryIntervalMs);
        }
        this.budgetLeftNanos = retryBudgetMs * 1_000_000;
        this.perReadNanos = perReadMs * 1_000_000;
        this.retryIntervalMs = retryIntervalMs;
        this.notes = notes;
    }

    /**
     * Reads until an attempt is {@link Op.Outcome#OK} or the budget is spent.
     *
     * @param what the read for people, e.g. {@code "final read of r-1-2 through n0"}
     * @return the last attempt's answer: OK, or the failure (noted)
     */
    NodeApi.Answer read(String what, Supplier<NodeApi.Answer> call) {
        Attempt<NodeApi.Answer> a = attempt(what, () -> {
            NodeApi.Answer answer = call.get();
            if (answer.outcome() != Op.Outcome.OK) {
                throw new AttemptFailed(answer.note());
            }
            return answer;
        });
        return a.result != null ? a.result : new NodeApi.Answer(Op.Outcome.FAIL, null, a.failure);
    }

    /** A call that fails by throwing; used for scans. */
    interface Call<T> {
        T call() throws IOException;
    }

    /**
     * Calls until one attempt returns without throwing or the budget is spent.
     *
     * @return what the call returned, or {@code null} if every attempt failed (noted)
     */
    <T> T call(String what, Call<T> call) {
        return attempt(what, () -> {
                    try {
                        return call.call();
                    } catch (IOException e) {
                        throw new AttemptFailed(e.getMessage() == null ? e.toString() : e.getMessage());
                    }
                })
                .result;
    }

    /** Adds the counts of retried and untried reads; call once, after the last read. */
    void finish() {
        if (notTried > 0) {
            notes.add(Note.failure(notTried + " final reads not tried: the final-read retry budget was spent"));
        }
        if (retried > 0) {
            notes.add(Note.info(retried + " final reads succeeded after a retry"));
        }
    }

    private record Attempt<T>(T result, String failure) {}

    /** A failed attempt, with why. */
    private static final class AttemptFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AttemptFailed(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Runs {@code once} (which returns a result or throws {@link AttemptFailed}) until it succeeds or the
     * budget is spent.
     */
    private <T> Attempt<T> attempt(String what, Supplier<T> once) {
        if (spent) {
            notTried++;
            return new Attempt<>(null, "not tried: the final-read retry budget was spent");
        }
        String[] why = {""};
        Supplier<T> tracked = () -> {
            try {
                return once.get();
            } catch (AttemptFailed e) {
                why[0] = e.getMessage();
                return null;
            }
        };
        T first = tracked.get();
        if (first != null) {
            return new Attempt<>(first, "");
        }
        int[] attempts = {1};
        List<T> got = new ArrayList<>(1);
        long started = System.nanoTime();
        long window = Math.min(perReadNanos, budgetLeftNanos);
        if (window > 2 * retryIntervalMs * 1_000_000) {
            try {
                await().pollInSameThread()
                        .pollDelay(Duration.ofMillis(retryIntervalMs))
                        .pollInterval(Duration.ofMillis(retryIntervalMs))
                        .atMost(Duration.ofNanos(window))
                        .until(() -> {
                            attempts[0]++;
                            T r = tracked.get();
                            if (r != null) {
                                got.add(r);
                            }
                            return r != null;
                        });
            } catch (ConditionTimeoutException e) {
                // noted below
            }
        }
        budgetLeftNanos -= System.nanoTime() - started;
        if (!got.isEmpty()) {
            retried++;
            return new Attempt<>(got.get(0), "");
        }
        String failure = why[0] + " (" + attempts[0] + " attempts)";
        notes.add(Note.failure(what + " failed: " + failure));
        spent = budgetLeftNanos <= 2 * retryIntervalMs * 1_000_000;
        return new Attempt<>(null, failure);
    }
}
