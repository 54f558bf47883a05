package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import jdk.jfr.Recording;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AllocationSamplerTest {

    private static final Instant T0 = Instant.parse("2026-11-23T00:00:00Z");

    private static AllocationSampler.Sample at(double s, long thread, String name, long bytes) {
        return new AllocationSampler.Sample(thread, name, T0.plusMillis(Math.round(s * 1000)), bytes);
    }

    /** Samples at 0..4 s: an event loop, a flusher that starts at 2 s, JFR's own thread, the attach listener. */
    private static List<AllocationSampler.Sample> samples() {
        List<AllocationSampler.Sample> out = new ArrayList<>();
        for (int s = 0; s <= 4; s++) {
            out.add(at(s, 26, "ringbase-http-io-3-1", 5_000_000 + s * 1_000_000L));
            if (s >= 2) {
                out.add(at(s, 23, "flush", 300_000 + (s - 2) * 50_000L));
            }
            out.add(at(s, 29, "JFR Periodic Tasks", s * 300_000L));
            out.add(at(s, 27, "Attach Listener", 9_000_000 + s * 700_000L));
        }
        return out;
    }

    @Test
    void sumsLastMinusFirstPerThreadOverTheWindow() {
        Optional<AllocationSampler.Allocation> a = AllocationSampler.allocated(samples(), T0, T0.plusSeconds(4));
        // event loop 4 MB over 0..4 s, flusher 100 kB over 2..4 s
        assertThat(a).contains(new AllocationSampler.Allocation(4_100_000, 4.0, 2));
        assertThat(a.get().bytesPerSecond()).isCloseTo(1_025_000, Offset.offset(1e-6));
    }

    @Test
    void samplesOutsideTheWindowAreLeftOut() {
        Optional<AllocationSampler.Allocation> a =
                AllocationSampler.allocated(samples(), T0.plusMillis(500), T0.plusMillis(3500));
        // samples at 1, 2, 3 s: event loop 2 MB, flusher 50 kB, over 2 s
        assertThat(a).contains(new AllocationSampler.Allocation(2_050_000, 2.0, 2));
    }

    @Test
    void theMeasurementsOwnThreadsAreNotCounted() {
        assertThat(AllocationSampler.measurementThread("JFR Periodic Tasks")).isTrue();
        assertThat(AllocationSampler.measurementThread("JFR Recorder Thread")).isTrue();
        assertThat(AllocationSampler.measurementThread("Attach Listener")).isTrue();
        assertThat(AllocationSampler.measurementThread("ringbase-http-io-3-1")).isFalse();
    }

    @Test
    void sampleOrderDoesNotMatter() {
        List<AllocationSampler.Sample> reversed = new ArrayList<>(samples()).reversed();
        assertThat(AllocationSampler.allocated(reversed, T0, T0.plusSeconds(4)))
                .isEqualTo(AllocationSampler.allocated(samples(), T0, T0.plusSeconds(4)));
    }

    @Test
    void fewerThanTwoSamplingTimesGiveNothing() {
        assertThat(AllocationSampler.allocated(samples(), T0.plusMillis(1500), T0.plusMillis(2500)))
                .isEmpty();
        assertThat(AllocationSampler.allocated(List.of(), T0, T0.plusSeconds(4)))
                .isEmpty();
    }

    @Test
    void readsTheSamplesOfARealRecording(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("alloc.jfr");
        byte[][] kept = new byte[100][];
        try (Recording r = new Recording()) {
            // one sample of every thread when the recording starts and one when it stops: no waiting for a period
            r.enable("jdk.ThreadAllocationStatistics").with("period", "everyChunk");
            r.start();
            for (int i = 0; i < kept.length; i++) {
                kept[i] = new byte[100_000];
            }
            r.stop();
            r.dump(file);
        }
        List<AllocationSampler.Sample> samples = AllocationSampler.read(file);
        long me = Thread.currentThread().threadId();
        List<AllocationSampler.Sample> mine =
                samples.stream().filter(s -> s.threadId() == me).toList();
        assertThat(mine).hasSizeGreaterThanOrEqualTo(2);
        assertThat(mine.getFirst().threadName())
                .isEqualTo(Thread.currentThread().getName());
        long allocated = mine.getLast().allocatedBytes() - mine.getFirst().allocatedBytes();
        assertThat(allocated).isGreaterThanOrEqualTo(100 * 100_000L);
        assertThat(kept[99]).hasSize(100_000);
    }
}
