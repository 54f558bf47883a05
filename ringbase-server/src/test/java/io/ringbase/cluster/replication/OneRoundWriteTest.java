package io.ringbase.cluster.replication;

import static io.ringbase.cluster.replication.CoordinatorTest.KEY;
import static io.ringbase.cluster.replication.CoordinatorTest.N0;
import static io.ringbase.cluster.replication.CoordinatorTest.N1;
import static io.ringbase.cluster.replication.CoordinatorTest.N2;
import static io.ringbase.cluster.replication.CoordinatorTest.TOPOLOGY;
import static io.ringbase.cluster.replication.CoordinatorTest.cause;
import static io.ringbase.cluster.replication.CoordinatorTest.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.CoordinatorTest.FakeReplica;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one-round quorum write against fake replicas: what counts toward ack, when it is sent again, hints. */
class OneRoundWriteTest {

    final FakeReplica r0 = new FakeReplica(N0);
    final FakeReplica r1 = new FakeReplica(N1);
    final FakeReplica r2 = new FakeReplica(N2);
    final List<FakeReplica> all = List.of(r0, r1, r2);
    final Liveness liveness = new Liveness(3);
    final List<Entry> hints = Collections.synchronizedList(new ArrayList<>());
    final List<NodeId> hinted = Collections.synchronizedList(new ArrayList<>());
    final HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L);
    final Coordinator coordinator = new Coordinator(
            TOPOLOGY,
            List.of(r0, r1, r2),
            liveness,
            (target, entry) -> {
                hinted.add(target);
                hints.add(entry);
                return CompletableFuture.completedFuture(null);
            },
            clock,
            Runnable::run,
            SpeculativeRetry.ALWAYS,
            null,
            io.ringbase.clock.TimeSource.SYSTEM,
            WriteProtocol.ONE_ROUND);

    /** A version issued by another coordinator whose clock is ahead of this one's (same ms, higher counter). */
    static final long ELSEWHERE = HybridLogicalClock.fromPhysicalMs(1_000) + 500;

    static String text(Entry e) {
        return e.value() == null ? "<tombstone>" : new String(e.value(), StandardCharsets.UTF_8);
    }

    @Test
    void aWriteTakenByAQuorumIsSentOncePerReplica() throws Exception {
        coordinator.write(value(clock.now(), "v"), 2, 3).get(5, TimeUnit.SECONDS);
        for (FakeReplica r : all) {
            assertThat(r.writes).as("writes to %s", r.node).hasSize(1);
            assertThat(r.calls).as("calls to %s: no version read", r.node).isEqualTo(1);
        }
        assertThat(coordinator.writesRestamped()).isZero();
    }

    @Test
    void aWriteRefusedByEveryReplicaIsSentAgainAboveTheNewestVersion() throws Exception {
        for (FakeReplica r : all) {
            r.stored = value(ELSEWHERE, "earlier write"); // completed through a coordinator whose clock is ahead
        }
        Entry mine = value(clock.now(), "later write");
        assertThat(mine.version()).isLessThan(ELSEWHERE);

        coordinator.write(mine, 2, 3).get(5, TimeUnit.SECONDS);

        for (FakeReplica r : all) {
            assertThat(text(r.stored)).as("on %s", r.node).isEqualTo("later write");
            assertThat(r.stored.version()).isGreaterThan(ELSEWHERE);
            assertThat(r.writes).as("writes to %s", r.node).hasSize(2);
        }
        assertThat(coordinator.writesRestamped()).isEqualTo(1);
    }

    @Test
    void aTieLostToAnotherEntryOfTheSameVersionCountsAsARefusal() throws Exception {
        Entry mine = value(clock.now(), "later write");
        Entry delete = Entry.tombstone(KEY, mine.version()); // the same version from another clock; it wins the tie
        for (FakeReplica r : all) {
            r.stored = delete;
        }
        coordinator.write(mine, 2, 3).get(5, TimeUnit.SECONDS);
        for (FakeReplica r : all) {
            assertThat(text(r.stored)).as("on %s", r.node).isEqualTo("later write");
            assertThat(r.stored.version()).isGreaterThan(delete.version());
        }
    }

    @Test
    void aRefusalNeverCountsTowardAck() throws Exception {
        r1.stored = value(ELSEWHERE, "concurrent write");
        CompletableFuture<Object> late = new CompletableFuture<>();
        r2.behaviour = n -> late;
        CompletableFuture<Long> write = coordinator.write(value(clock.now(), "v"), 2, 3);
        assertThat(write)
                .as("one replica took it, one refused: not done until a second one takes it")
                .isNotDone();
        late.complete(null);
        write.get(5, TimeUnit.SECONDS);
        assertThat(text(r1.stored)).isEqualTo("concurrent write");
        assertThat(r0.writes).hasSize(1);
    }

    @Test
    void aWriteTakenBySomeAndRefusedByOthersFailsAsPossiblyAppliedAndIsNotSentAgain() throws Exception {
        // Sending it again above the newer version could make it take effect twice: a quorum read may have
        // seen it where it was taken, before reads saw the newer write (docs/design.md).
        r1.stored = value(ELSEWHERE, "newer write");
        r2.stored = value(ELSEWHERE, "newer write");

        Throwable failure = cause(coordinator.write(value(clock.now(), "mine"), 2, 3));

        assertThat(failure)
                .isInstanceOf(QuorumException.LostToNewerVersions.class)
                .hasMessageContaining("1 of 3 replicas took the write")
                .hasMessageContaining("2 held a newer version")
                .hasMessageContaining("may have been applied");
        for (FakeReplica r : all) {
            assertThat(r.writes).as("writes to %s", r.node).hasSize(1);
        }
        assertThat(coordinator.writesSplit()).isEqualTo(1);
        assertThat(coordinator.writesRestamped()).isZero();
    }

    @Test
    void aRefusalAndATimeoutFailAsPossiblyAppliedNotSentAgain() throws Exception {
        r1.stored = value(ELSEWHERE, "newer write");
        r2.stored = value(ELSEWHERE, "newer write");
        r0.stored = value(ELSEWHERE, "newer write");
        r2.writeBehaviour = e -> CompletableFuture.failedFuture(new ReplicaException.Timeout(N2, 1000));

        Throwable failure = cause(coordinator.write(value(clock.now(), "mine"), 2, 3));

        assertThat(failure)
                .as("the replica that timed out may hold it")
                .isInstanceOf(QuorumException.LostToNewerVersions.class)
                .hasMessageContaining("1 timed out");
        assertThat(coordinator.writesRestamped()).isZero();
        assertThat(hinted).containsExactly(N2);
    }

    @Test
    void aWriteRefusedOnEveryAttemptFailsAndHintsNothing() throws Exception {
        liveness.markDown(N2, 1);
        for (FakeReplica r : all) {
            r.writeBehaviour = e -> {
                r.stored = Entry.newer(r.stored, value(e.version() + 1_000, "always newer")); // lands first
                return CompletableFuture.completedFuture(null);
            };
        }

        Throwable failure = cause(coordinator.write(value(clock.now(), "mine"), 2, 3));

        assertThat(failure)
                .isInstanceOf(QuorumException.LostToNewerVersions.class)
                .hasMessageContaining("on each of " + Coordinator.MAX_WRITE_ATTEMPTS + " attempts")
                .hasMessageContaining("no replica took the write");
        assertThat(r0.writes).hasSize(Coordinator.MAX_WRITE_ATTEMPTS);
        assertThat(hints)
                .as("no replica took any attempt: the down one gets none")
                .isEmpty();
    }

    @Test
    void aReplicaDownGetsAHintOfTheVersionTakenOnly() throws Exception {
        liveness.markDown(N2, 1);
        r0.stored = value(ELSEWHERE, "earlier write");
        r1.stored = value(ELSEWHERE, "earlier write");

        coordinator.write(value(clock.now(), "later write"), 2, 3).get(5, TimeUnit.SECONDS);

        assertThat(r2.writes).isEmpty();
        assertThat(hinted).containsExactly(N2);
        assertThat(hints.getFirst().version())
                .as("the re-stamped version, not the refused one")
                .isEqualTo(r0.stored.version())
                .isGreaterThan(ELSEWHERE);
    }

    @Test
    void aWriteBelowAQuorumIsTheSameUnderEitherProtocol() throws Exception {
        for (FakeReplica r : all) {
            r.stored = value(ELSEWHERE, "earlier write");
        }
        coordinator.write(value(clock.now(), "later write"), 1, 3).get(5, TimeUnit.SECONDS);
        assertThat(text(r0.stored)).isEqualTo("later write");
        assertThat(coordinator.writesRestamped())
                .as("counted for one-round quorum writes only")
                .isZero();
    }

    @Test
    void writeProtocolParsesItsFlag() {
        assertThat(WriteProtocol.parse("one-round")).isEqualTo(WriteProtocol.ONE_ROUND);
        assertThat(WriteProtocol.parse("ABD")).isEqualTo(WriteProtocol.ABD);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WriteProtocol.parse("paxos"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--write-protocol must be one-round or abd, got 'paxos'");
    }
}
