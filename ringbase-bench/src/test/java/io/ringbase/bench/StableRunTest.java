package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The stable run, which the verdict is judged on, never has the profiler attached; the profiled run after it
 * makes the flame graphs and its latencies are reported apart. A fake load generator answers in 2 ms without
 * the profiler and in 40 ms with it (over the 10 ms SLO), and records which of its runs had the profiler.
 */
class StableRunTest {

    private static final double SLO_MS = 10;

    /** A load generator whose latency depends on whether the fake profiler is attached. */
    private static final class FakeLoad implements LoadGenerator {
        final AtomicBoolean profilerAttached = new AtomicBoolean();
        final List<Boolean> runsWithProfiler = new ArrayList<>();
        final CountDownLatch profiledLoadDone = new CountDownLatch(1);

        @Override
        public LoadResult run(List<LoadSpec> specs, int durationS, IntConsumer tick) {
            boolean with = profilerAttached.get();
            runsWithProfiler.add(with);
            LoadResult r = LoadResult.empty(durationS);
            for (int i = 0; i < 100 * durationS; i++) {
                r.record(i / 100.0, with ? 40_000 : 2_000, 201);
            }
            if (with) {
                profiledLoadDone.countDown();
            }
            return r;
        }

        @Override
        public String describe() {
            return "fake";
        }
    }

    /** Attaches, lets the load start, stays attached until the profiled load has run, detaches. */
    private static StableRun.Profiling fakeProfiler(FakeLoad load) {
        return (durationS, attached) -> {
            load.profilerAttached.set(true);
            attached.run();
            boolean ran = load.profiledLoadDone.await(10, TimeUnit.SECONDS);
            load.profilerAttached.set(false);
            if (!ran) {
                throw new java.io.IOException("the profiled load never ran");
            }
            return List.of(new Report.ProfileOutput(1, "cpu", "cpu", "profiles/node1-cpu.html", List.of()));
        };
    }

    private static BenchConfig config() {
        return new BenchConfig(
                Workload.PUT,
                KeyChoice.UNIFORM,
                0.5,
                100,
                0,
                64,
                0,
                0,
                1,
                null,
                SLO_MS,
                0.8,
                3,
                5,
                5000,
                10,
                12,
                Path.of("bench-reports"),
                null,
                null,
                100,
                100,
                4,
                true,
                0,
                1,
                List.of(),
                List.of(),
                LoadGenerator.Kind.RATEGEN);
    }

    /** Records which run the causes window saw. */
    private static final class RecordingWindow implements StableRun.Window {
        final List<Boolean> closedOnRunWithProfiler = new ArrayList<>();
        final FakeLoad load;

        RecordingWindow(FakeLoad load) {
            this.load = load;
        }

        @Override
        public void open(int durationS) {
            assertThat(load.profilerAttached)
                    .as("profiler attached when the stable window opens")
                    .isFalse();
        }

        @Override
        public void close(LoadResult stable) {
            closedOnRunWithProfiler.add(stable.percentileMs(99) > SLO_MS);
        }
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    @Test
    void theVerdictComesFromTheRunWithoutTheProfiler() throws Exception {
        FakeLoad load = new FakeLoad();
        RecordingWindow window = new RecordingWindow(load);
        List<String> notes = new ArrayList<>();
        StableRun.Outcome out =
                new StableRun(config(), load, quiet()).run(List.of(), 4000, 5000, window, fakeProfiler(load), notes);

        assertThat(load.runsWithProfiler)
                .as("stable run first, clean; then the profiled run")
                .containsExactly(false, true);
        assertThat(out.stable().percentileMs(99)).isCloseTo(2.0, Offset.offset(0.01));
        assertThat(out.sloMissed())
                .as("2 ms holds a 10 ms SLO; 40 ms with the profiler would not")
                .isNull();
        assertThat(notes).noneMatch(n -> n.contains("did not hold the SLO"));
        assertThat(window.closedOnRunWithProfiler)
                .as("causes measured over the clean run")
                .containsExactly(false);
        assertThat(out.profiled()).isNotNull();
        assertThat(out.profiled().withProfiler().percentileMs(99)).isCloseTo(40.0, Offset.offset(0.1));
        assertThat(out.profiled().targetRate()).isEqualTo(4000);
        assertThat(out.profiles()).extracting(Report.ProfileOutput::kind).containsExactly("cpu");
    }

    @Test
    void aStableRunOverTheSloFailsTheVerdictWhateverTheProfiledRunDid() throws Exception {
        FakeLoad load = new FakeLoad();
        load.profilerAttached.set(true); // as if the profiler were left attached: every run is slow
        List<String> notes = new ArrayList<>();
        StableRun.Outcome out = new StableRun(config(), load, quiet())
                .run(
                        List.of(),
                        4000,
                        5000,
                        new StableRun.Window() {
                            @Override
                            public void open(int durationS) {}

                            @Override
                            public void close(LoadResult stable) {}
                        },
                        null,
                        notes);
        assertThat(out.sloMissed()).contains("did not hold the SLO: p99 40.0");
        assertThat(notes).contains(out.sloMissed());
        assertThat(out.profiled()).isNull();
    }

    @Test
    void withoutProfilingThereIsOneRunAndNoProfiledOne() throws Exception {
        FakeLoad load = new FakeLoad();
        StableRun.Outcome out = new StableRun(config(), load, quiet())
                .run(List.of(), 4000, 5000, new RecordingWindow(load), null, new ArrayList<>());
        assertThat(load.runsWithProfiler).containsExactly(false);
        assertThat(out.profiled()).isNull();
        assertThat(out.profiles()).isEmpty();
    }

    @Test
    void aProfilerThatFailsToAttachLeavesTheStableRunAndANote() throws Exception {
        FakeLoad load = new FakeLoad();
        List<String> notes = new ArrayList<>();
        StableRun.Outcome out = new StableRun(config(), load, quiet())
                .run(
                        List.of(),
                        4000,
                        5000,
                        new RecordingWindow(load),
                        (durationS, attached) -> {
                            throw new java.io.IOException("async-profiler 'start' refused");
                        },
                        notes);
        assertThat(load.runsWithProfiler).containsExactly(false);
        assertThat(out.stable().percentileMs(99)).isCloseTo(2.0, Offset.offset(0.01));
        assertThat(out.profiled()).isNull();
        assertThat(notes).anyMatch(n -> n.contains("Profiling failed") && n.contains("'start' refused"));
    }
}
