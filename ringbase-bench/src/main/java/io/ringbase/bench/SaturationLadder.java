package io.ringbase.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The saturation search's decisions (pure, no I/O): which constant rate to try next given the steps so far.
 * Doubles from the start rate while steps pass; after the first failure, bisects between the highest passing
 * and the lowest failing rate until they are within {@code precision} of each other or the step budget is
 * spent. A step fails when the achieved rate is below {@value #ACHIEVED_SHARE} of the target, the p99 passes
 * the SLO, or more than {@value #MAX_ERROR_SHARE} of the answers are errors. A failing step is run once more
 * at the same rate before the rate counts as failing (one stall in a short step should not cap the search);
 * a rate with any passing step counts as passing.
 */
public final class SaturationLadder {

    /** Achieved/target rate below which a step fails. */
    public static final double ACHIEVED_SHARE = 0.95;
    /** Share of error answers (unexpected status) above which a step fails. */
    public static final double MAX_ERROR_SHARE = 0.01;

    /** What one constant-rate step measured. Rates in requests per second, latency in ms. */
    public record Measurement(long targetRate, double achievedRate, double p99Ms, double errorShare) {}

    /** One step of the ladder and its verdict; {@code reason} is empty when it passed. */
    public record Step(Measurement measurement, boolean passed, String reason) {}

    private final long startRate;
    private final double sloMs;
    private final double precision;
    private final int maxSteps;
    private final List<Step> steps = new ArrayList<>();

    /**
     * @param startRate first rate to try (requests per second)
     * @param sloMs     p99 limit in ms
     * @param precision stop bisecting when (failing - passing) / failing is at most this (e.g. 0.1)
     * @param maxSteps  most steps in all
     */
    public SaturationLadder(long startRate, double sloMs, double precision, int maxSteps) {
        this.startRate = startRate;
        this.sloMs = sloMs;
        this.precision = precision;
        this.maxSteps = maxSteps;
    }

    /** Judges one measurement against the rules above. */
    public Step judge(Measurement m) {
        List<String> why = new ArrayList<>();
        if (m.achievedRate() < ACHIEVED_SHARE * m.targetRate()) {
            why.add(String.format("achieved %.0f%% of target", 100 * m.achievedRate() / m.targetRate()));
        }
        if (m.p99Ms() > sloMs) {
            why.add(String.format("p99 %.2f ms > SLO %.1f ms", m.p99Ms(), sloMs));
        }
        if (m.errorShare() > MAX_ERROR_SHARE) {
            why.add(String.format("%.1f%% errors", 100 * m.errorShare()));
        }
        return new Step(m, why.isEmpty(), String.join("; ", why));
    }

    /** Records a measured step and returns its verdict. */
    public Step record(Measurement m) {
        Step step = judge(m);
        steps.add(step);
        return step;
    }

    /** The rate to try next, or empty when the search is over. */
    public OptionalLong nextRate() {
        if (steps.isEmpty()) {
            return OptionalLong.of(startRate);
        }
        if (steps.size() >= maxSteps) {
            return OptionalLong.empty();
        }
        Step last = steps.getLast();
        long lastRate = last.measurement().targetRate();
        if (!last.passed()
                && steps.stream()
                                .filter(st -> st.measurement().targetRate() == lastRate)
                                .count()
                        == 1) {
            return OptionalLong.of(lastRate); // confirm a failure once
        }
        long pass = highestPassing();
        OptionalLong fail = lowestFailing();
        if (fail.isEmpty()) {
            return OptionalLong.of(pass * 2);
        }
        long lo = pass;
        long hi = fail.getAsLong();
        if (hi - lo <= precision * hi || hi <= 1) {
            return OptionalLong.empty();
        }
        long mid = (lo + hi) / 2;
        return mid == lo || mid == hi ? OptionalLong.empty() : OptionalLong.of(mid);
    }

    /** The highest rate that passed (requests per second), 0 if none did: the saturation rate. */
    public long highestPassing() {
        return steps.stream()
                .filter(Step::passed)
                .mapToLong(s -> s.measurement().targetRate())
                .max()
                .orElse(0);
    }

    /** The lowest rate none of whose steps passed. */
    private OptionalLong lowestFailing() {
        return steps.stream()
                .mapToLong(s -> s.measurement().targetRate())
                .filter(rate -> steps.stream()
                        .noneMatch(s -> s.passed() && s.measurement().targetRate() == rate))
                .min();
    }

    /** The steps so far, in the order they ran. */
    public List<Step> steps() {
        return List.copyOf(steps);
    }
}
