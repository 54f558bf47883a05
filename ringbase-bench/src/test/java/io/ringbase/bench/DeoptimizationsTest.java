package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@IntegrationTest
class DeoptimizationsTest {

    /** A node's log as GcLog.jvmOption has it written (JDK 25): GC and deoptimization lines together. */
    private static final List<String> LOG = List.of(
            "[0.004s] Using Serial",
            "[4.370s] cid=3614 osr level=4 java.util.Arrays.fill([Ljava/lang/Object;IILjava/lang/Object;)V trap_bci=10 "
                    + "osr_bci=10 profile_predicate maybe_recompile pc=0x00007f9ec7c181d8 relative_pc=0x00000000000001d8",
            "[10.500s] GC(3) Pause Young (Allocation Failure) 35M->5M(123M) 1.255ms",
            "[26.867s] cid=4062     level=4 io.netty.channel.epoll.EpollIoHandler.run(Lio/netty/channel/IoHandlerContext;)I "
                    + "trap_bci=232 unstable_if reinterpret pc=0x00007f1b9beffdfc relative_pc=0x0000000000000b7c",
            "[26.867s] cid=3074     level=4 io.ringbase.api.wire.RequestDecoder.headerField(Lio/netty/buffer/ByteBuf;II)Z "
                    + "trap_bci=366 unstable_if reinterpret pc=0x00007f1b9bb32128 relative_pc=0x00000000000018a8",
            "[26.883s] cid=3447     level=4 io.netty.channel.AbstractChannelHandlerContext.isNotValidPromise("
                    + "Lio/netty/channel/ChannelPromise;Z)Z trap_bci=8 class_check maybe_recompile pc=0x00007f1b9bbc41f8 "
                    + "relative_pc=0x0000000000000af8",
            "[26.900s] cid= 112     level=4 io.ringbase.api.wire.RequestDecoder.headerField(Lio/netty/buffer/ByteBuf;II)Z "
                    + "trap_bci=366 unstable_if reinterpret pc=0x00007f1b9bb32128 relative_pc=0x00000000000018a8",
            "[27,500s] cid=9 level=4 io.ringbase.storage.sstable.XxHash64.hash(Ljava/lang/foreign/MemorySegment;JJ)J "
                    + "trap_bci=231 unstable_if make_not_entrant pc=0x1 relative_pc=0x1");

    @Test
    void readsEveryTrapWithItsMethodReasonAndAction() {
        List<Deoptimizations.Trap> traps = Deoptimizations.traps(LOG);
        assertThat(traps).hasSize(6);
        assertThat(traps.getFirst())
                .isEqualTo(new Deoptimizations.Trap(
                        4.370, "java.util.Arrays.fill", "profile_predicate", "maybe_recompile"));
        assertThat(traps.get(1))
                .isEqualTo(new Deoptimizations.Trap(
                        26.867, "io.netty.channel.epoll.EpollIoHandler.run", "unstable_if", "reinterpret"));
        assertThat(traps.getLast())
                .isEqualTo(new Deoptimizations.Trap(
                        27.5,
                        "io.ringbase.storage.sstable.XxHash64.hash",
                        "unstable_if",
                        "make_not_entrant")); // a decimal comma is read
        assertThat(traps)
                .extracting(Deoptimizations.Trap::dropsCode)
                .containsExactly(false, true, true, false, true, true);
    }

    @Test
    void aWindowCountsItsTrapsAndNamesTheMethodsWhoseCodeWasDropped() {
        Deoptimizations.Summary s = Deoptimizations.within(Deoptimizations.traps(LOG), 26.867, 27.5);
        assertThat(s.count()).isEqualTo(5);
        assertThat(s.dropping()).isEqualTo(4);
        assertThat(s.topDropping())
                .containsExactly(
                        Map.entry("io.ringbase.api.wire.RequestDecoder.headerField", 2),
                        Map.entry("io.netty.channel.epoll.EpollIoHandler.run", 1),
                        Map.entry("io.ringbase.storage.sstable.XxHash64.hash", 1));
        assertThat(Deoptimizations.within(Deoptimizations.traps(LOG), 5, 26.8))
                .isEqualTo(new Deoptimizations.Summary(0, 0, Map.of()));
    }

    @Test
    void namesAtMostTheTopMethods() {
        List<Deoptimizations.Trap> traps = new java.util.ArrayList<>();
        for (int m = 0; m < Deoptimizations.TOP + 3; m++) {
            for (int i = 0; i <= m; i++) {
                traps.add(new Deoptimizations.Trap(1.0, "p.C.m" + m, "unstable_if", "reinterpret"));
            }
        }
        Deoptimizations.Summary s = Deoptimizations.within(traps, 0, 2);
        assertThat(s.topDropping()).hasSize(Deoptimizations.TOP);
        assertThat(s.topDropping().keySet()).first().isEqualTo("p.C.m" + (Deoptimizations.TOP + 2));
        assertThat(s.dropping()).isEqualTo(s.count());
    }

    @Test
    void linesThatAreNotTrapsAreSkipped() {
        assertThat(Deoptimizations.traps(List.of(
                        "",
                        "garbage",
                        "[1.000s] GC(0) Pause Young (Allocation Failure) 1M->1M(2M) 1.0ms",
                        "cid=1 level=4 a.B.c()V trap_bci=1 unstable_if reinterpret pc=0x1")))
                .isEmpty();
    }

    /** Warms {@link #branch} up on one side of its {@code if}, then takes the other: C2's code for it must go. */
    static final class Probe {
        static int branch(int x) {
            if (x >= 0) {
                return x + 1;
            }
            return x * 3;
        }

        public static void main(String[] args) {
            long sum = 0;
            for (int i = 0; i < 200_000; i++) {
                sum += branch(i);
            }
            sum += branch(-5);
            System.out.println(sum);
        }
    }

    /** The option as bench gives it to a node, in a real JVM (compiling in the foreground, -Xbatch). */
    @Test
    void aRealJvmLogsTheTrapThatDropsCompiledCode(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("node1-gc.log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(
                        java.toString(),
                        "-Xbatch",
                        "-XX:+UseSerialGC",
                        "-Xmx64m",
                        GcLog.jvmOption(log),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Probe.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("out").toFile())
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("probe JVM finished").isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("out"))).isZero();

        List<String> lines = Files.readAllLines(log);
        List<Deoptimizations.Trap> traps = Deoptimizations.traps(lines);
        assertThat(traps).as(String.join("\n", lines)).anySatisfy(t -> {
            assertThat(t.method()).isEqualTo(Probe.class.getName() + ".branch");
            assertThat(t.reason()).isEqualTo("unstable_if");
            assertThat(t.dropsCode()).isTrue();
        });
        assertThat(GcLog.pauses(lines))
                .allSatisfy(pause -> assertThat(pause.ms()).isNotNegative());
    }
}
