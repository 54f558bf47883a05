package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

class SaturationLadderTest {

    /** Runs the ladder against a fake server and returns the rates it tried, in order. */
    private static List<Long> drive(SaturationLadder ladder, LongFunction<SaturationLadder.Measurement> server) {
        List<Long> rates = new ArrayList<>();
        OptionalLong next = ladder.nextRate();
        while (next.isPresent()) {
            rates.add(next.getAsLong());
            ladder.record(server.apply(next.getAsLong()));
            next = ladder.nextRate();
        }
        return rates;
    }

    /** A server that answers up to {@code capacity} req/s with a 1 ms p99, and no more. */
    private static LongFunction<SaturationLadder.Measurement> capped(long capacity) {
        return rate -> new SaturationLadder.Measurement(rate, Math.min(rate, capacity), 1.0, 0.0);
    }

    @Test
    void doublesUntilTheFirstFailureThenBisects() {
        SaturationLadder ladder = new SaturationLadder(5_000, 10, 0.10, 12);
        List<Long> rates = drive(ladder, capped(37_000));
        // 5k, 10k, 20k pass; 40k achieves 92.5% and fails, twice; then bisect 20k..40k: 30k pass, 35k pass,
        // 37.5k achieves 98.7% and passes; (40k-37.5k)/40k < 10%: stop
        assertThat(rates).containsExactly(5_000L, 10_000L, 20_000L, 40_000L, 40_000L, 30_000L, 35_000L, 37_500L);
        assertThat(ladder.highestPassing()).isEqualTo(37_500);
        assertThat(ladder.steps())
                .extracting(SaturationLadder.Step::passed)
                .containsExactly(true, true, true, false, false, true, true, true);
    }

    @Test
    void aP99OverTheSloFailsAStepEvenAtFullRate() {
        SaturationLadder ladder = new SaturationLadder(10_000, 10, 0.10, 12);
        List<Long> rates =
                drive(ladder, rate -> new SaturationLadder.Measurement(rate, rate, rate >= 20_000 ? 25.0 : 2.0, 0));
        assertThat(rates).startsWith(10_000L, 20_000L, 20_000L, 15_000L);
        assertThat(ladder.highestPassing()).isBetween(18_000L, 19_999L);
        assertThat(ladder.steps().get(1).reason()).contains("p99 25.00 ms > SLO 10.0 ms");
    }

    @Test
    void errorsAboveOnePercentFailAStep() {
        SaturationLadder ladder = new SaturationLadder(1_000, 10, 0.10, 12);
        SaturationLadder.Step step = ladder.judge(new SaturationLadder.Measurement(1_000, 1_000, 1, 0.02));
        assertThat(step.passed()).isFalse();
        assertThat(step.reason()).isEqualTo("2.0% errors");
        assertThat(ladder.judge(new SaturationLadder.Measurement(1_000, 950, 1, 0.01))
                        .passed())
                .isTrue();
    }

    @Test
    void aFailingFirstStepBisectsDownwardFromZero() {
        SaturationLadder ladder = new SaturationLadder(8_000, 10, 0.10, 12);
        List<Long> rates = drive(ladder, capped(2_100));
        assertThat(rates).startsWith(8_000L, 8_000L, 4_000L, 4_000L, 2_000L, 3_000L, 3_000L);
        // 2,125 still passes: 2,100 answered is 98.8% of it
        assertThat(ladder.highestPassing()).isBetween(2_000L, 2_210L);
    }

    @Test
    void aSingleNoisyFailureIsRetriedAndDoesNotCapTheSearch() {
        SaturationLadder ladder = new SaturationLadder(5_000, 10, 0.10, 6);
        int[] calls = {0};
        List<Long> rates =
                drive(ladder, rate -> new SaturationLadder.Measurement(rate, rate, ++calls[0] == 1 ? 70.0 : 1.0, 0));
        assertThat(rates).containsExactly(5_000L, 5_000L, 10_000L, 20_000L, 40_000L, 80_000L);
        assertThat(ladder.highestPassing()).isEqualTo(80_000);
    }

    @Test
    void stopsAtTheStepBudget() {
        SaturationLadder ladder = new SaturationLadder(1, 10, 0.10, 4);
        assertThat(drive(ladder, capped(Long.MAX_VALUE))).containsExactly(1L, 2L, 4L, 8L);
        assertThat(ladder.highestPassing()).isEqualTo(8);
    }
}
