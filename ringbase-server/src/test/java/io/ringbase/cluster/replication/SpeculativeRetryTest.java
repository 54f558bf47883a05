package io.ringbase.cluster.replication;

import static io.ringbase.cluster.replication.CoordinatorTest.KEY;
import static io.ringbase.cluster.replication.CoordinatorTest.N0;
import static io.ringbase.cluster.replication.CoordinatorTest.TOPOLOGY;
import static io.ringbase.cluster.replication.CoordinatorTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.CoordinatorTest.FakeReplica;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Reads spread over a key's replicas by policy: {@code ack} replicas first,
 * this node first and slow ones last, one more at a failure or after the speculative retry delay. The
 * timer is a manual scheduler, so the tests decide when a delay passes.
 */
class SpeculativeRetryTest {

    /** A scheduler whose tasks run only when a test says so. */
    static final class ManualScheduler implements Scheduler {
        final List<Runnable> tasks = Collections.synchronizedList(new ArrayList<>());
        final List<Long> delays = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void schedule(Runnable task, long delayNanos) {
            tasks.add(task);
            delays.add(delayNanos);
        }

        /** Runs the tasks scheduled so far (not those they schedule), as if their delays passed. */
        void elapse() {
            List<Runnable> due = new ArrayList<>(tasks);
            tasks.clear();
            due.forEach(Runnable::run);
        }
    }

    final FakeReplica r0 = new FakeReplica(TOPOLOGY.node(0));
    final FakeReplica r1 = new FakeReplica(TOPOLOGY.node(1));
    final FakeReplica r2 = new FakeReplica(TOPOLOGY.node(2));
    final List<FakeReplica> all = List.of(r0, r1, r2);
    final Liveness liveness = new Liveness(3);
    final HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L);
    final ManualScheduler timers = new ManualScheduler();
    final List<Runnable> background = Collections.synchronizedList(new ArrayList<>());

    Coordinator coordinator(SpeculativeRetry retry) {
        return coordinator(retry, WriteProtocol.DEFAULT);
    }

    Coordinator coordinator(SpeculativeRetry retry, WriteProtocol protocol) {
        return new Coordinator(
                TOPOLOGY,
                List.of(r0, r1, r2),
                liveness,
                (target, entry) -> CompletableFuture.completedFuture(null),
                clock,
                background::add,
                retry,
                timers,
                io.ringbase.clock.TimeSource.SYSTEM,
                protocol);
    }

    final Coordinator coordinator = coordinator(SpeculativeRetry.DEFAULT);

    /** The remote replicas of {@link CoordinatorTest#KEY} in ring order: the first is asked before the second. */
    FakeReplica remote(int i) {
        List<FakeReplica> remotes = new ArrayList<>();
        for (NodeId n : coordinator.placement().current().replicas(KEY, 3)) {
            if (!n.equals(N0)) {
                remotes.add(all.get(n.index()));
            }
        }
        return remotes.get(i);
    }

    void storeEverywhere(Entry e) {
        all.forEach(r -> r.stored = e);
    }

    @Test
    void parsesCassandrasForms() {
        assertThat(SpeculativeRetry.parse("99p")).isEqualTo(SpeculativeRetry.DEFAULT);
        assertThat(SpeculativeRetry.parse("95.5P").percentile()).isEqualTo(95.5);
        assertThat(SpeculativeRetry.parse("20ms").fixedMs()).isEqualTo(20);
        assertThat(SpeculativeRetry.parse("NONE").kind()).isEqualTo(SpeculativeRetry.Kind.NONE);
        assertThat(SpeculativeRetry.parse("always")).isEqualTo(SpeculativeRetry.ALWAYS);
        for (String s : List.of("99p", "95.5p", "20ms", "none", "always")) {
            assertThat(SpeculativeRetry.parse(s)).hasToString(s);
        }
        for (String bad : List.of("", "fast", "0ms", "-3ms", "100p", "10p", "p", "ms", "1.5ms")) {
            assertThatThrownBy(() -> SpeculativeRetry.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("99p, 20ms, none or always");
        }
    }

    @Test
    void aReadGoesToAckReplicasThisNodeFirstAndArmsOneTimer() throws Exception {
        storeEverywhere(value(5, "v"));
        assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(r0.calls).isEqualTo(1);
        assertThat(remote(0).calls).isEqualTo(1);
        assertThat(remote(1).calls).as("the third replica is not asked").isZero();
        assertThat(timers.delays).containsExactly(Coordinator.INITIAL_SPECULATION_DELAY_NANOS);
        timers.elapse(); // the read is decided: the timer sends nothing
        assertThat(remote(1).calls).isZero();
        assertThat(coordinator.speculativeReads()).isZero();
    }

    @Test
    void aReadOfOneAsksOnlyThisNode() throws Exception {
        storeEverywhere(value(5, "v"));
        assertThat(coordinator.read(KEY, 1, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(r1.calls + r2.calls).isZero();
    }

    @Test
    void aReplicaThatFailsIsReplacedAtOnce() throws Exception {
        storeEverywhere(value(5, "v"));
        remote(0).fails(n -> new ReplicaException.Failed(n, "500", null));
        assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(remote(1).calls).isEqualTo(1);
        assertThat(coordinator.speculativeReads()).isZero();
    }

    @Test
    void aReadUndecidedWhenTheDelayPassesGoesToOneMoreReplica() throws Exception {
        storeEverywhere(value(5, "v"));
        remote(0).hangs();
        CompletableFuture<Entry> read = coordinator.read(KEY, 2, 3);
        assertThat(read).isNotDone();
        assertThat(remote(1).calls).isZero();
        timers.elapse();
        assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(remote(1).calls).isEqualTo(1);
        assertThat(coordinator.speculativeReads()).isEqualTo(1);
        assertThat(timers.tasks).as("no replica is left: no timer again").isEmpty();
    }

    @Test
    void aReplicaWhoseCallsTimeOutThreeTimesInARowIsAskedLastUntilItAnswersInTime() throws Exception {
        storeEverywhere(value(5, "v"));
        FakeReplica first = remote(0);
        FakeReplica second = remote(1);
        first.fails(n -> new ReplicaException.Timeout(n, 1000));
        for (int i = 0; i < Liveness.SLOW_AFTER_TIMEOUTS; i++) {
            assertThat(liveness.isSlow(first.node)).isFalse();
            assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        }
        assertThat(liveness.isSlow(first.node)).isTrue();
        assertThat(liveness.isUp(first.node)).as("slow is not down").isTrue();
        int firstCalls = first.calls;
        int secondCalls = second.calls;
        coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(first.calls).as("the slow replica is skipped").isEqualTo(firstCalls);
        assertThat(second.calls).isEqualTo(secondCalls + 1);

        // writes still go to it; one answered in time ends its slowness
        first.behaviour = n -> CompletableFuture.completedFuture(null);
        coordinator.write(value(6, "w"), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(first.writes).containsExactly(value(6, "w"));
        assertThat(liveness.isSlow(first.node)).isFalse();
        coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(first.calls).isEqualTo(firstCalls + 2); // the write and this read
    }

    @Test
    void aPingDoesNotEndSlowness() {
        NodeId n1 = TOPOLOGY.node(1);
        for (int i = 0; i < Liveness.SLOW_AFTER_TIMEOUTS; i++) {
            liveness.markTimedOut(n1);
        }
        liveness.markUp(n1);
        assertThat(liveness.isSlow(n1)).isTrue();
        liveness.markAnswered(n1);
        assertThat(liveness.isSlow(n1)).isFalse();
    }

    @Test
    void slowReplicasAreAskedWhenTooFewOthersAreLeft() throws Exception {
        storeEverywhere(value(5, "v"));
        for (FakeReplica r : List.of(r1, r2)) {
            for (int i = 0; i < Liveness.SLOW_AFTER_TIMEOUTS; i++) {
                liveness.markTimedOut(r.node);
            }
        }
        assertThat(coordinator.read(KEY, 3, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(r1.calls).isEqualTo(1);
        assertThat(r2.calls).isEqualTo(1);
    }

    @Test
    void alwaysAsksEveryReplicaNotSlowAtOnceAndTheSlowOnesAfterTheDelay() throws Exception {
        Coordinator always = coordinator(SpeculativeRetry.ALWAYS);
        storeEverywhere(value(5, "v"));
        FakeReplica slow = remote(0);
        for (int i = 0; i < Liveness.SLOW_AFTER_TIMEOUTS; i++) {
            liveness.markTimedOut(slow.node);
        }
        remote(1).hangs();
        CompletableFuture<Entry> read = always.read(KEY, 2, 3);
        assertThat(remote(1).calls).isEqualTo(1);
        assertThat(slow.calls).isZero();
        timers.elapse();
        assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(slow.calls).isEqualTo(1);
    }

    @Test
    void noneArmsNoTimerButStillReplacesAFailedReplica() throws Exception {
        Coordinator none = coordinator(SpeculativeRetry.parse("none"));
        storeEverywhere(value(5, "v"));
        remote(0).fails(n -> new ReplicaException.Unreachable(n, null));
        assertThat(none.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
        assertThat(timers.delays).isEmpty();
    }

    @Test
    void aFixedDelayIsUsedAsGiven() {
        Coordinator fixed = coordinator(SpeculativeRetry.parse("7ms"));
        storeEverywhere(value(5, "v"));
        remote(0).hangs();
        var _ = fixed.read(KEY, 2, 3); // only the retry timer it sets is looked at
        assertThat(timers.delays).containsExactly(TimeUnit.MILLISECONDS.toNanos(7));
    }

    @Test
    void aBelowQuorumReadRepairsEveryReplicaItAskedOnceAllOfThemAnswered() throws Exception {
        // this node hangs, the speculative read decides, then this node's stale answer comes
        r0.stored = value(5, "old");
        remote(0).stored = value(9, "new");
        remote(1).stored = value(9, "new");
        CompletableFuture<Object> local = new CompletableFuture<>();
        r0.behaviour = n -> local;
        CompletableFuture<Entry> read = coordinator.read(KEY, 1, 3);
        assertThat(read).isNotDone();
        timers.elapse();
        assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(value(9, "new"));
        assertThat(remote(1).calls).as("one more replica per delay").isZero();
        assertThat(background).as("this node has not answered yet").isEmpty();
        local.complete(null);
        assertThat(background).as("one repair: this node").hasSize(1);
        background.forEach(Runnable::run);
        assertThat(r0.stored).isEqualTo(value(9, "new"));
        assertThat(remote(1).writes).isEmpty();
    }

    @Test
    void aQuorumReadWritesTheNewestBackToTheReplicaItDidNotAskToo() throws Exception {
        r0.stored = value(9, "new");
        remote(0).stored = value(5, "old");
        remote(1).stored = value(5, "old");
        CompletableFuture<Object> stuck = new CompletableFuture<>();
        remote(0).writeBehaviour = e -> stuck; // the stale replica asked takes its time to store it
        assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(9, "new"));
        assertThat(remote(1).writes).as("ABD writes back to all").containsExactly(value(9, "new"));
    }

    @Test
    void aQuorumWriteReadsVersionsFromAckReplicasFirst() throws Exception {
        storeEverywhere(value(5, "v"));
        coordinator(SpeculativeRetry.DEFAULT, WriteProtocol.ABD)
                .write(value(3, "w"), 2, 3)
                .get(5, TimeUnit.SECONDS);
        // the version phase asked two replicas (two calls each: version read, then the write); the third got the write
        assertThat(r0.calls).isEqualTo(2);
        assertThat(remote(0).calls).isEqualTo(2);
        assertThat(remote(1).calls).isEqualTo(1);
        assertThat(remote(1).stored.version())
                .as("written above the version read")
                .isGreaterThan(5);
    }

    @Test
    void aReadWhoseReplicasAllFailFailsOnceAckIsOutOfReach() throws Exception {
        r0.stored = value(5, "v");
        remote(0).fails(n -> new ReplicaException.Timeout(n, 1000));
        remote(1).fails(n -> new ReplicaException.Failed(n, "500", null));
        Throwable failure = CoordinatorTest.cause(coordinator.read(KEY, 2, 3));
        // (the fakes fail at once, so both remotes failed before this node was asked: "0 of 3 answered")
        assertThat(failure)
                .isInstanceOf(QuorumException.NotEnoughAnswers.class)
                .hasMessageContaining("of 3 replicas answered, 2 needed (1 timed out, 1 failed)");
    }
}
