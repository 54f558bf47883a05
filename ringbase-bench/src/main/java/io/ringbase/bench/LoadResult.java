package io.ringbase.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What one or more load generator runs measured: every answered request's latency (microseconds, from the
 * intended send time) in one histogram, the same per second of the run, and the answers by HTTP status.
 *
 * @param latencyUs   all latencies in microseconds
 * @param perSecondUs latencies by the second of the run they were sent in (index = second)
 * @param statuses    answers by HTTP status code
 * @param durationS   the run's length in seconds, the denominator of {@link #achievedRate()}
 * @param operations  the same figures per operation (HTTP method: {@code GET}, {@code PUT}) when the run mixed
 *                    several, by {@link #addOperation}; empty otherwise
 * @param unsent      of the requests without an answer ({@link #NO_ANSWER}), those the generator never sent
 *                    because their connection was still behind when its schedule ended (0 where the
 *                    generator does not tell)
 */
public record LoadResult(
        Histogram latencyUs,
        Histogram[] perSecondUs,
        Map<Integer, Long> statuses,
        int durationS,
        Map<String, LoadResult> operations,
        AtomicLong unsent) {

    /**
     * The status under which {@link #statuses} counts requests that got no answer: a connection error or a
     * timeout (each generator sends a known number of requests and records the answered ones, so the
     * difference is what failed).
     */
    public static final int NO_ANSWER = 0;

    /** Largest latency a histogram holds: 60 s in microseconds (larger values are clamped to it). */
    public static final long HIGHEST_US = 60_000_000L;

    /** An empty result for a run of {@code durationS} seconds. */
    public static LoadResult empty(int durationS) {
        Histogram[] perSecond = new Histogram[durationS];
        for (int i = 0; i < durationS; i++) {
            perSecond[i] = newHistogram();
        }
        return new LoadResult(newHistogram(), perSecond, new TreeMap<>(), durationS, new TreeMap<>(), new AtomicLong());
    }

    /** A histogram of microseconds up to {@link #HIGHEST_US} with 3 significant digits. */
    public static Histogram newHistogram() {
        return new Histogram(HIGHEST_US, 3);
    }

    /** Records one answered request sent {@code startS} seconds into the run. */
    public void record(double startS, long latencyUs, int status) {
        long v = Math.max(1, Math.min(latencyUs, HIGHEST_US));
        latencyUs().recordValue(v);
        int second = (int) Math.floor(startS);
        if (second >= 0 && second < perSecondUs.length) {
            perSecondUs[second].recordValue(v);
        }
        statuses.merge(status, 1L, Long::sum);
    }

    /** Counts {@code count} requests that got no answer (error or timeout) under {@link #NO_ANSWER}. */
    public void recordNoAnswer(long count) {
        if (count > 0) {
            statuses.merge(NO_ANSWER, count, Long::sum);
        }
    }

    /**
     * Counts {@code count} requests that got no answer, as {@link #recordNoAnswer(long)}, of which {@code unsent}
     * were never sent: the generator's schedule ended while their connection still waited for an earlier
     * answer (rategen's {@code unsent=}). The rest are connection errors and timeouts.
     */
    public void recordNoAnswer(long count, long unsent) {
        recordNoAnswer(count);
        this.unsent.addAndGet(Math.max(0, Math.min(unsent, count)));
    }

    /** Requests that got no answer: never sent ({@link #unsent}), connection errors and timeouts. */
    public long noAnswer() {
        return statuses.getOrDefault(NO_ANSWER, 0L);
    }

    /** Answers whose status is in {@code [from, to)}, e.g. 500..600 for server errors. */
    public long answersWithStatus(int from, int to) {
        return statuses.entrySet().stream()
                .filter(e -> e.getKey() >= from && e.getKey() < to)
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** Adds another result of the same length (e.g. a parallel run against another node) into this one. */
    public void add(LoadResult other) {
        latencyUs.add(other.latencyUs);
        for (int i = 0; i < Math.min(perSecondUs.length, other.perSecondUs.length); i++) {
            perSecondUs[i].add(other.perSecondUs[i]);
        }
        other.statuses.forEach((k, v) -> statuses.merge(k, v, Long::sum));
        unsent.addAndGet(other.unsent.get());
    }

    /**
     * Adds {@code one}, the result of one load generator that sent only {@code operation}, into this result and
     * into this result's figures for that operation.
     */
    public void addOperation(String operation, LoadResult one) {
        add(one);
        operations.computeIfAbsent(operation, op -> empty(durationS)).add(one);
    }

    /** Answered requests in all. */
    public long answered() {
        return latencyUs.getTotalCount();
    }

    /** Answered requests per second over the run. */
    public double achievedRate() {
        return (double) answered() / durationS;
    }

    /** The latency at {@code percentile} (0..100) in milliseconds. */
    public double percentileMs(double percentile) {
        return latencyUs.getValueAtPercentile(percentile) / 1000.0;
    }

    /**
     * Share (0..1) of requests that failed: answers whose status is not one of {@code expected}, and requests
     * that got no answer ({@link #NO_ANSWER}), over all requests sent.
     */
    public double errorShare(java.util.Set<Integer> expected) {
        long bad = statuses.entrySet().stream()
                .filter(e -> !expected.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
        long sent = answered() + noAnswer();
        return sent == 0 ? 1.0 : (double) bad / sent;
    }
}
