package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.replication.WriteProtocol;
import io.ringbase.faults.checker.Linearizability;
import io.ringbase.faults.checker.Verdict;
import io.ringbase.faults.history.Op;
import io.ringbase.node.NodeConfig;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-round quorum write through a coordinator whose clock is behind, and which missed the key's last
 * write, is refused by the replicas that hold it: it must not be acknowledged as if it had been taken
 * (reads would then go on returning the write it came after). The history goes through the fault
 * suite's linearizability checker.
 */
@IntegrationTest
class ClusterOneRoundWriteTest {

    /** How far node 2's clock is behind the others' (ms), within the clocks' bound of this test. */
    static final long BEHIND_MS = 10_000;

    @TempDir
    Path tmp;

    static NodeConfig config(NodeConfig c) {
        NodeConfig base = LocalCluster.withoutHints(c)
                .withClock(c.clock().withMaxOffsetMs(60_000))
                .withWriteProtocol(WriteProtocol.ONE_ROUND);
        return c.topology().self().index() == 2 ? base.withClock(base.clock().withTestOffsetMs(-BEHIND_MS)) : base;
    }

    @Test
    void aWriteThroughACoordinatorBehindThatMissedTheLastWriteIsNotOrderedBeforeIt() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3, ClusterOneRoundWriteTest::config)) {
            c.awaitAllUp(Duration.ofSeconds(15));
            List<Op> history = new ArrayList<>();
            c.stop(2); // misses the next write (its hint is dropped)
            Op first = write("c0", "first", () -> c.put(0, "k", "first", "&ack=2"));
            history.add(first);
            assertThat(first.outcome()).as(first.note()).isEqualTo(Op.Outcome.OK);
            c.start(2);
            c.awaitAllUp(Duration.ofSeconds(15));

            Op second = write("c2", "second", () -> c.put(2, "k", "second", "&ack=2"));
            history.add(second);
            for (int via : new int[] {0, 1, 2}) {
                long invoke = System.nanoTime();
                LocalCluster.Reply r = c.get(via, "k", "&ack=2");
                assertThat(r.status()).as("read through %d: %s", via, r.body()).isEqualTo(200);
                history.add(
                        new Op("r" + via, Op.Fn.READ, "k", r.body(), invoke, System.nanoTime(), Op.Outcome.OK, "200"));
            }

            Verdict verdict = Linearizability.check(Map.of("k", history), Linearizability.DEFAULT_MAX_STEPS);
            assertThat(verdict.pass())
                    .as("%s: %s", verdict.summary(), verdict.problems())
                    .isTrue();
            assertThat(second.note())
                    .as("node 2's own replica took it, nodes 0 and 1 held the newer first write")
                    .contains("lost to a concurrent write");
        }
    }

    /** A write as the fault suite's client records it: 201 took effect, 504 may have. */
    private static Op write(String process, String value, Supplier<LocalCluster.Reply> call) {
        long invoke = System.nanoTime();
        LocalCluster.Reply r = call.get();
        Op.Outcome outcome =
                r.status() == 201 ? Op.Outcome.OK : r.status() == 504 ? Op.Outcome.UNKNOWN : Op.Outcome.FAIL;
        return new Op(
                process, Op.Fn.WRITE, "k", value, invoke, System.nanoTime(), outcome, r.status() + " " + r.body());
    }
}
