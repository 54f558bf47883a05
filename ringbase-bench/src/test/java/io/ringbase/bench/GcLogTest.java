package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class GcLogTest {

    /** A Serial log as a node writes it with -Xlog:gc,deoptimization=debug:file=...:uptime (JDK 25). */
    private static final List<String> SERIAL = List.of(
            "[0.009s] Using Serial",
            "[2.790s] GC(0) Pause Young (Allocation Failure) 35M->5M(123M) 30.255ms",
            "[10.100s] GC(1) Pause Young (Allocation Failure) 38M->6M(123M) 2.000ms",
            "[12.000s] cid=4062     level=4 io.netty.channel.epoll.EpollIoHandler.run(Lio/netty/channel/IoHandlerContext;)I "
                    + "trap_bci=232 unstable_if reinterpret pc=0x00007f1b9beffdfc relative_pc=0x0000000000000b7c",
            "[15.500s] GC(2) Pause Young (Allocation Failure) 39M->7M(123M) 4.500ms",
            "[19.999s] GC(3) Pause Full (Allocation Failure) 120M->60M(123M) 56.250ms",
            "[30.000s] GC(4) Pause Young (Allocation Failure) 70M->61M(123M) 1.000ms");

    /** A G1 log: young, remark and cleanup are pauses; the concurrent cycle is not. */
    private static final List<String> G1 = List.of(
            "[0.005s] Using G1",
            "[0.639s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 15M->3M(128M) 6.283ms",
            "[8.583s] GC(1) Pause Young (Concurrent Start) (CodeCache GC Threshold) 41M->7M(128M) 14.605ms",
            "[8.589s] GC(2) Concurrent Mark Cycle",
            "[8.611s] GC(2) Pause Remark 7M->7M(27M) 5.988ms",
            "[8.628s] GC(2) Pause Cleanup 7M->7M(27M) 0.044ms",
            "[8.629s] GC(2) Concurrent Mark Cycle 39.772ms");

    @Test
    void readsEveryPauseWithTheUptimeItEndedAt() {
        assertThat(GcLog.pauses(SERIAL))
                .containsExactly(
                        new GcLog.Pause(2.790, 30.255),
                        new GcLog.Pause(10.100, 2.0),
                        new GcLog.Pause(15.500, 4.5),
                        new GcLog.Pause(19.999, 56.25),
                        new GcLog.Pause(30.0, 1.0));
    }

    @Test
    void concurrentPhasesAreNotPauses() {
        assertThat(GcLog.pauses(G1)).extracting(GcLog.Pause::ms).containsExactly(6.283, 14.605, 5.988, 0.044);
    }

    @Test
    void countsOnlyPausesThatEndedInsideTheWindowEdgesIncluded() {
        GcLog.Pauses p = GcLog.within(GcLog.pauses(SERIAL), 10.100, 19.999);
        assertThat(p.count()).isEqualTo(3);
        assertThat(p.totalMs()).isCloseTo(62.75, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(p.maxMs()).isEqualTo(56.25);
    }

    @Test
    void aWindowWithoutPausesIsZeros() {
        assertThat(GcLog.within(GcLog.pauses(SERIAL), 20.0, 29.9)).isEqualTo(new GcLog.Pauses(0, 0, 0));
        assertThat(GcLog.within(List.of(), 0, 100)).isEqualTo(new GcLog.Pauses(0, 0, 0));
    }

    @Test
    void aDecimalCommaIsRead() {
        assertThat(GcLog.pauses(List.of("[12,500s] GC(7) Pause Young (Allocation Failure) 35M->5M(123M) 3,250ms")))
                .containsExactly(new GcLog.Pause(12.5, 3.25));
    }

    @Test
    void linesThatAreNotPausesAreSkipped() {
        assertThat(GcLog.pauses(List.of(
                        "",
                        "garbage",
                        "[1.000s] GC(0) Pause Young (Allocation Failure)",
                        "GC(0) Pause Young (Allocation Failure) 35M->5M(123M) 3.2ms")))
                .isEmpty();
    }

    @Test
    void optionNamesTheFileWithTheUptimeDecorator() {
        assertThat(GcLog.jvmOption(Path.of("/r/node1-gc.log")))
                .isEqualTo("-Xlog:gc,deoptimization=debug:file=/r/node1-gc.log:uptime");
    }

    @Test
    void aPathTheOptionCannotCarryIsRefused() {
        assertThat(GcLog.fitsOption(Path.of("/my reports/node1-gc.log"))).isFalse();
        assertThat(GcLog.fitsOption(Path.of("/r:s/node1-gc.log"))).isFalse();
        assertThatThrownBy(() -> GcLog.jvmOption(Path.of("/my reports/node1-gc.log")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whitespace");
    }
}
