package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The coordinator against fake replicas: quorum outcomes, hints, newest-wins reads, read repair. */
class CoordinatorTest {

    static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);
    static final Topology TOPOLOGY = Topology.parse(
            List.of("http://10.0.0.1:8080", "http://10.0.0.2:8080", "http://10.0.0.3:8080"), "http://10.0.0.1:8080");
    static final NodeId N0 = TOPOLOGY.node(0);
    static final NodeId N1 = TOPOLOGY.node(1);
    static final NodeId N2 = TOPOLOGY.node(2);

    /** A replica whose every call is answered by {@code behaviour}; it records the writes it got. */
    static final class FakeReplica implements Replica {
        final NodeId node;
        volatile Function<NodeId, CompletableFuture<Object>> behaviour;
        volatile Entry stored;
        final List<Entry> writes = Collections.synchronizedList(new ArrayList<>());
        volatile int calls;
        volatile int probes;

        FakeReplica(NodeId node) {
            this.node = node;
            this.behaviour = n -> CompletableFuture.completedFuture(null);
        }

        @Override
        public NodeId node() {
            return node;
        }

        @Override
        public CompletableFuture<Entry> read(byte[] key) {
            synchronized (this) { // the coordinator may call from several threads at once
                calls++;
            }
            return behaviour.apply(node).thenApply(v -> stored);
        }

        /** Answers writes instead of {@link #behaviour} when set. */
        volatile Function<Entry, CompletableFuture<Object>> writeBehaviour;

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            synchronized (this) {
                calls++;
            }
            Function<Entry, CompletableFuture<Object>> w = writeBehaviour;
            return (w == null ? behaviour.apply(node) : w.apply(entry)).thenApply(v -> {
                writes.add(entry);
                stored = Entry.newer(stored, entry);
                return null;
            });
        }

        @Override
        public CompletableFuture<Long> writeChecked(Entry entry) {
            return write(entry).thenApply(v -> Replica.writeResult(entry, stored));
        }

        @Override
        public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> probe() {
            synchronized (this) {
                probes++;
            }
            return behaviour.apply(node).thenApply(v -> null);
        }

        /** What {@link #ping()} says the engine cannot do, or null when it can write. */
        volatile String unwritable;

        @Override
        public CompletableFuture<String> ping() {
            return probe().thenApply(v -> unwritable);
        }

        void fails(Function<NodeId, Throwable> failure) {
            behaviour = n -> CompletableFuture.failedFuture(failure.apply(n));
        }

        void hangs() {
            behaviour = n -> new CompletableFuture<>();
        }
    }

    final FakeReplica r0 = new FakeReplica(N0);
    final FakeReplica r1 = new FakeReplica(N1);
    final FakeReplica r2 = new FakeReplica(N2);
    final Liveness liveness = new Liveness(3);
    final List<NodeId> hinted = Collections.synchronizedList(new ArrayList<>());
    final HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L);
    final Coordinator coordinator = new Coordinator(
            TOPOLOGY,
            List.of(r0, r1, r2),
            liveness,
            (target, entry) -> {
                hinted.add(target);
                return CompletableFuture.completedFuture(null);
            },
            clock,
            Runnable::run);
    /** As {@link #coordinator}, making quorum writes in ABD's two phases. */
    final Coordinator abd = new Coordinator(
            TOPOLOGY,
            List.of(r0, r1, r2),
            liveness,
            (target, entry) -> {
                hinted.add(target);
                return CompletableFuture.completedFuture(null);
            },
            clock,
            Runnable::run,
            SpeculativeRetry.ALWAYS,
            null,
            io.ringbase.clock.TimeSource.SYSTEM,
            WriteProtocol.ABD);

    static Entry value(long version, String v) {
        return Entry.value(KEY, version, v.getBytes(StandardCharsets.UTF_8));
    }

    static Throwable cause(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + f.getNow(null));

        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("not completed", e);
        }
    }

    @Test
    void fewerUpReplicasThanAckIsUnavailableAndNothingIsSent() throws Exception {
        liveness.markDown(N1, 1);
        liveness.markDown(N2, 1);
        r1.fails(n -> new ReplicaException.Unreachable(n, new java.net.ConnectException("refused")));
        r2.fails(n -> new ReplicaException.Unreachable(n, new java.net.ConnectException("refused")));
        Throwable write = cause(coordinator.write(value(5, "v"), 2, 3));
        assertThat(write).isInstanceOf(QuorumException.Unavailable.class).hasMessageContaining("nothing was written");
        Throwable read = cause(coordinator.read(KEY, 2, 3));
        assertThat(read).isInstanceOf(QuorumException.Unavailable.class);
        assertThat(r0.calls + r1.calls + r2.calls).as("calls sent").isZero();
        assertThat(r1.probes)
                .as("the believed-down nodes are probed before the refusal")
                .isEqualTo(2);
        assertThat(r2.probes).isEqualTo(2);
    }

    @Test
    void aNodeBelievedDownThatIsBackServesTheVeryNextRequest() throws Exception {
        // regression: a restarted node got 504 "not enough replicas reachable" until the prober's next round
        liveness.markDown(N1, 1);
        liveness.markDown(N2, 1);
        coordinator.write(value(5, "v"), 3, 3).get(5, TimeUnit.SECONDS);
        assertThat(r1.writes).hasSize(1);
        assertThat(r2.writes).hasSize(1);
        assertThat(liveness.isUp(N1)).isTrue();
        assertThat(liveness.isUp(N2)).isTrue();
        assertThat(hinted).as("no hint for a node that took the write").isEmpty();

        liveness.markDown(N2, 1);
        assertThat(coordinator.read(KEY, 3, 3).get(5, TimeUnit.SECONDS).version())
                .isEqualTo(5);
        liveness.markDown(N1, 1);
        liveness.markDown(N2, 1);
        assertThat(coordinator.upReplicas(3).get(5, TimeUnit.SECONDS)).hasSize(3);
    }

    @Test
    void aBelievedDownNodeIsNotProbedWhenEnoughOthersAreUp() throws Exception {
        liveness.markDown(N2, 1);
        coordinator.write(value(5, "v"), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(r2.probes).isZero();
        assertThat(r2.writes).as("the detector still orders and skips").isEmpty();
        assertThat(hinted).containsExactly(N2);
    }

    @Test
    void concurrentRequestsShareOneProbePerNode() throws Exception {
        liveness.markDown(N1, 1);
        liveness.markDown(N2, 1);
        CompletableFuture<Object> answer = new CompletableFuture<>();
        r1.behaviour = n -> answer;
        r2.behaviour = n -> answer;
        List<CompletableFuture<Long>> writes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            writes.add(coordinator.write(value(10 + i, "v"), 2, 3));
        }
        assertThat(r1.probes).isEqualTo(1);
        assertThat(r2.probes).isEqualTo(1);
        answer.complete(null);
        for (CompletableFuture<Long> w : writes) {
            w.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWriteThatLosesToAVersionItsClockHadNotSeenIsWrittenAgainAboveIt() throws Exception {
        // A write acknowledged through another node whose clock ran ahead (same millisecond, higher counter)
        long elsewhere = HybridLogicalClock.fromPhysicalMs(1_000) + 500;
        r1.stored = value(elsewhere, "earlier write");
        r2.stored = value(elsewhere, "earlier write");
        Entry mine = value(clock.now(), "later write");
        assertThat(mine.version()).isLessThan(elsewhere);
        abd.write(mine, 2, 3).get(5, TimeUnit.SECONDS);
        for (FakeReplica r : List.of(r0, r1, r2)) {
            assertThat(new String(r.stored.value(), StandardCharsets.UTF_8))
                    .as("on %s", r.node)
                    .isEqualTo("later write");
            assertThat(r.stored.version()).isGreaterThan(elsewhere);
        }
    }

    @Test
    void aQuorumWriteReadsTheVersionsFirstAndWritesOnceAboveThem() throws Exception {
        long elsewhere = HybridLogicalClock.fromPhysicalMs(1_000) + 500; // acknowledged through another node
        r1.stored = value(elsewhere, "earlier write");
        r2.stored = value(elsewhere, "earlier write");
        abd.write(value(clock.now(), "later write"), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(r0.writes)
                .as("one write per replica, already above the version read")
                .hasSize(1);
        assertThat(r0.writes.get(0).version()).isGreaterThan(elsewhere);
    }

    @Test
    void aQuorumWriteThatMeetsAConcurrentNewerWriteIsNotAppliedAgainAboveIt() throws Exception {
        // The fault suite's history: a slow write, seen by one read, then overwritten by a write that began
        // later; re-versioning the slow write made it come back after that (one write taking effect twice).
        Entry mine = value(clock.now(), "slow write");
        Entry concurrent = value(mine.version() + 10, "concurrent write");
        r1.writeBehaviour = e -> {
            r1.stored = Entry.newer(r1.stored, concurrent); // lands between the two phases
            return CompletableFuture.completedFuture(null);
        };
        abd.write(mine, 2, 3).get(5, TimeUnit.SECONDS);
        for (FakeReplica r : List.of(r0, r1, r2)) {
            for (Entry e : r.writes) {
                assertThat(e.version()).as("write on %s", r.node).isEqualTo(mine.version());
            }
        }
        assertThat(r1.stored.version()).isEqualTo(concurrent.version());
    }

    @Test
    void aWriteBelowAQuorumThatLosesToANewerVersionIsWrittenAgainAboveIt() throws Exception {
        long elsewhere = HybridLogicalClock.fromPhysicalMs(1_000) + 500;
        for (FakeReplica r : List.of(r0, r1, r2)) {
            r.stored = value(elsewhere, "earlier write");
        }
        Entry mine = value(clock.now(), "later write");
        coordinator.write(mine, 1, 3).get(5, TimeUnit.SECONDS);
        assertThat(new String(r0.stored.value(), StandardCharsets.UTF_8)).isEqualTo("later write");
        assertThat(r0.stored.version()).isGreaterThan(elsewhere);
    }

    @Test
    void aQuorumWriteNeverWritesAVersionBelowOneAQuorumAlreadyHolds() throws Exception {
        // Fault suite, latency+loss, key r-4-7: a quorum write stored below a newer version was readable,
        // then superseded, then came back when re-versioned above later acknowledged writes. ABD: learn the
        // newest version first, write once above it.
        long elsewhere = HybridLogicalClock.fromPhysicalMs(1_000) + 500;
        r1.stored = value(elsewhere, "earlier write");
        r2.stored = value(elsewhere, "earlier write");
        Entry mine = value(clock.now(), "later write");

        abd.write(mine, 2, 3).get(5, TimeUnit.SECONDS);

        for (FakeReplica r : List.of(r0, r1, r2)) {
            assertThat(r.writes).as("writes to %s", r.node).hasSize(1);
            assertThat(r.writes.getFirst().version()).isGreaterThan(elsewhere);
        }
    }

    @Test
    void aQuorumWriteThatMeetsAConcurrentNewerWriteIsOrderedBeforeItNotWrittenAgain() throws Exception {
        for (FakeReplica r : List.of(r0, r1, r2)) {
            r.writeBehaviour = e -> {
                r.stored = value(e.version() + 1_000, "concurrent"); // landed between the two phases
                return CompletableFuture.completedFuture(null);
            };
        }

        abd.write(value(clock.now(), "v"), 2, 3).get(5, TimeUnit.SECONDS);

        assertThat(r0.writes).hasSize(1);
        assertThat(r1.writes).hasSize(1);
    }

    @Test
    void aWriteThatLosesATieAtItsOwnVersionIsWrittenAgainAboveIt() throws Exception {
        // Another coordinator's clock issued the very same version to a delete; the tombstone wins the tie
        Entry mine = value(clock.now(), "later write");
        Entry delete = Entry.tombstone(KEY, mine.version());
        r1.stored = delete;
        r2.stored = delete;
        abd.write(mine, 2, 3).get(5, TimeUnit.SECONDS);
        for (FakeReplica r : List.of(r0, r1, r2)) {
            assertThat(r.stored.value()).as("on %s", r.node).isNotNull();
            assertThat(new String(r.stored.value(), StandardCharsets.UTF_8))
                    .as("on %s", r.node)
                    .isEqualTo("later write");
            assertThat(r.stored.version()).isGreaterThan(delete.version());
        }
    }

    @Test
    void writeResultReportsWhetherTheWrittenEntryWon() {
        Entry mine = value(100, "b");
        assertThat(Replica.writeResult(mine, mine)).isEqualTo(100);
        assertThat(Replica.writeResult(mine, null)).isEqualTo(100);
        assertThat(Replica.writeResult(mine, value(99, "z")))
                .as("an older entry loses")
                .isEqualTo(100);
        assertThat(Replica.writeResult(mine, value(100, "a")))
                .as("a smaller value loses the tie")
                .isEqualTo(100);
        assertThat(Replica.writeResult(mine, value(100, "c")))
                .as("a greater value wins the tie")
                .isEqualTo(101);
        assertThat(Replica.writeResult(mine, Entry.tombstone(KEY, 100)))
                .as("a tombstone wins the tie")
                .isEqualTo(101);
        assertThat(Replica.writeResult(mine, value(250, "a")))
                .as("a newer version")
                .isEqualTo(250);
    }

    @Test
    void selfCountsAsUpEvenIfMarkedDown() throws Exception {
        liveness.markDown(N0, 1);
        coordinator.write(value(5, "v"), 3, 3).get(5, TimeUnit.SECONDS);
        assertThat(r0.writes).hasSize(1);
    }

    @Test
    void failingReplicasGiveNotEnoughAnswers() throws Exception {
        r1.fails(n -> new ReplicaException.Timeout(n, 1000));
        r2.fails(n -> new ReplicaException.Failed(n, "500", null));
        Throwable write = cause(abd.write(value(5, "v"), 2, 3));
        assertThat(write)
                .isInstanceOf(QuorumException.NotEnoughAnswers.class)
                .hasMessageStartingWith("timeout:")
                .hasMessageContaining("may have been applied")
                .hasMessageContaining("1 timed out")
                .hasMessageContaining("1 failed");
        assertThat(r0.writes)
                .as("a quorum write whose version read fails writes nothing")
                .isEmpty();
        assertThat(cause(coordinator.read(KEY, 2, 3))).isInstanceOf(QuorumException.NotEnoughAnswers.class);
        coordinator.write(value(6, "v"), 1, 3).get(5, TimeUnit.SECONDS);
        assertThat(r0.writes)
                .as("below a quorum there is no version read: the local copy is written")
                .hasSize(1);
    }

    @Test
    void anUnreachableReplicaIsMarkedDown() throws Exception {
        r2.fails(n -> new ReplicaException.Unreachable(n, new java.net.ConnectException("refused")));
        coordinator.write(value(5, "v"), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(liveness.isUp(N2)).isFalse();
        assertThat(liveness.isUp(N1)).isTrue();
        // a timeout is no proof of death: it does not mark down
        r1.fails(n -> new ReplicaException.Timeout(n, 1000));
        coordinator.write(value(6, "v"), 1, 3).get(5, TimeUnit.SECONDS);
        assertThat(liveness.isUp(N1)).isTrue();
    }

    @Test
    void aWriteAnswersAfterAckWithoutWaitingForTheSlowest() throws Exception {
        r2.hangs();
        CompletableFuture<Long> write = coordinator.write(value(5, "v"), 2, 3);
        write.get(5, TimeUnit.SECONDS);
        assertThat(r0.writes).hasSize(1);
        assertThat(r1.writes).hasSize(1);
    }

    @Test
    void aReadAnswersAfterAckWithoutWaitingForTheSlowest() throws Exception {
        r0.stored = value(5, "v");
        r1.stored = value(5, "v");
        r2.hangs();
        assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(5, "v"));
    }

    @Test
    void aWriteWithAckOfAllWaitsForAll() {
        r2.hangs();
        CompletableFuture<Long> write = coordinator.write(value(5, "v"), 3, 3);
        assertThat(write).isNotDone();
    }

    @Test
    void downAndFailedReplicasOfAWriteGetAHint() throws Exception {
        liveness.markDown(N1, 1);
        r2.fails(n -> new ReplicaException.Failed(n, "500", null));
        coordinator.write(value(5, "v"), 1, 3).get(5, TimeUnit.SECONDS);
        assertThat(hinted).containsExactlyInAnyOrder(N1, N2);
        assertThat(r1.calls).as("nothing sent to a down replica").isZero();
    }

    @Test
    void aWriteThatHintsAnswersOnlyOnceItsHintsAreStored() throws Exception {
        // a crash right after a write is acknowledged must lose no hint already known to be needed
        List<CompletableFuture<Void>> storing = Collections.synchronizedList(new ArrayList<>());
        Coordinator slowHints = new Coordinator(
                TOPOLOGY,
                List.of(r0, r1, r2),
                liveness,
                (target, entry) -> {
                    CompletableFuture<Void> stored = new CompletableFuture<>();
                    storing.add(stored);
                    return stored;
                },
                clock,
                Runnable::run);
        liveness.markDown(N1, 1);
        r2.fails(n -> new ReplicaException.Failed(n, "500", null));

        CompletableFuture<Long> write = slowHints.write(value(5, "v"), 1, 3);

        assertThat(storing).hasSize(2);
        assertThat(write).as("acknowledged before its hints were stored").isNotDone();
        storing.get(0).complete(null);
        assertThat(write).isNotDone();
        storing.get(1).complete(null);
        write.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aWriteThatLosesToNewerVersionsEveryTimeSaysHowManyStoredIt() throws Exception {
        // every replica answers that it holds a newer version, attempt after attempt (a non-quorum write)
        for (FakeReplica r : List.of(r0, r1, r2)) {
            r.writeBehaviour = e -> {
                r.stored = value(e.version() + 1_000_000, "newer");
                return CompletableFuture.completedFuture(null);
            };
        }
        liveness.markDown(N2, 1);
        r2.fails(n -> new ReplicaException.Unreachable(n, new java.net.ConnectException("refused")));

        Throwable write = cause(coordinator.write(value(clock.now(), "v"), 1, 3)); // re-versions: not a quorum

        assertThat(write)
                .isInstanceOf(QuorumException.class)
                .hasMessageContaining("1 of 3 replicas answered")
                .hasMessageContaining("newer version")
                .hasMessageNotContaining("0 of 3");
    }

    @Test
    @Timeout(10)
    void aWriteThatEveryReplicaAnsweredButLostToNewerVersionsIsNotCalledATimeout() throws Exception {
        // every replica is up and answers at once, each time holding a newer version (a non-quorum write)
        for (FakeReplica r : List.of(r0, r1, r2)) {
            r.writeBehaviour = e -> {
                r.stored = value(e.version() + 1_000_000, "newer");
                return CompletableFuture.completedFuture(null);
            };
        }

        Throwable write = cause(coordinator.write(value(clock.now(), "v"), 1, 3));

        assertThat(write)
                .isInstanceOf(QuorumException.LostToNewerVersions.class)
                .hasMessageStartingWith("lost to a newer version:")
                .hasMessageNotContaining("timeout")
                .hasMessageContaining("on each of 3 attempts");
    }

    @Test
    @Timeout(10)
    void aWriteThatCannotBeWrittenAgainBecauseTheBackgroundQueueIsFullSaysSo() throws Exception {
        Executor full = task -> {
            throw new RejectedExecutionException("queue full");
        };
        Coordinator saturated = new Coordinator(
                TOPOLOGY,
                List.of(r0, r1, r2),
                liveness,
                (target, entry) -> CompletableFuture.completedFuture(null),
                clock,
                full);
        for (FakeReplica r : List.of(r0, r1, r2)) {
            r.writeBehaviour = e -> {
                r.stored = value(e.version() + 1_000_000, "newer");
                return CompletableFuture.completedFuture(null);
            };
        }

        Throwable write = cause(saturated.write(value(clock.now(), "v"), 1, 3));

        assertThat(write)
                .isInstanceOf(QuorumException.LostToNewerVersions.class)
                .hasMessageStartingWith("lost to a newer version:")
                .hasMessageContaining("background queue is full")
                .hasMessageNotContaining("on each of");
        assertThat(r0.writes).as("written once, not again").hasSize(1);
    }

    @Test
    void aReplicaWhosePingSaysItCannotWriteIsDownForWritesButServesReads() throws Exception {
        r2.unwritable = "WAL segment wal-1.log failed: No space left on device";
        r0.stored = value(4, "old");
        r1.stored = value(4, "old");
        r2.stored = value(4, "old");
        liveness.markDown(N2, 1);
        // ack=3 needs N2: the coordinator pings it, learns it cannot write, and sends nothing
        Throwable refused = cause(coordinator.write(value(5, "v"), 3, 3));
        assertThat(refused).isInstanceOf(QuorumException.Unavailable.class).hasMessageContaining("nothing was written");
        assertThat(liveness.isUp(N2)).isTrue();
        assertThat(liveness.isUpForWrites(N2)).isFalse();
        assertThat(r0.writes).isEmpty();
        assertThat(r2.writes).isEmpty();

        coordinator.write(value(6, "v"), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(r2.writes).as("not sent to a replica that cannot write").isEmpty();
        assertThat(hinted).containsExactly(N2);
        assertThat(coordinator.read(KEY, 3, 3).get(5, TimeUnit.SECONDS))
                .as("reads still go to it")
                .isNotNull();

        r2.unwritable = null; // its disk has room again: the next ping says so
        liveness.markDown(N2, 1);
        coordinator.write(value(7, "v"), 3, 3).get(5, TimeUnit.SECONDS);
        assertThat(liveness.isUpForWrites(N2)).isTrue();
        assertThat(r2.writes).extracting(Entry::version).contains(7L);
    }

    @Test
    void aWriteAnsweredWithAnErrorPingsTheReplicaAndLearnsItCannotWrite() throws Exception {
        r2.writeBehaviour =
                e -> CompletableFuture.failedFuture(new ReplicaException.Failed(N2, "500 storage I/O error", null));
        r2.unwritable = "WAL segment wal-1.log failed: No space left on device";

        coordinator.write(value(5, "v"), 2, 3).get(5, TimeUnit.SECONDS);

        assertThat(liveness.isUpForWrites(N2)).isFalse();
        assertThat(liveness.unwritableReason(N2)).contains("No space left");
    }

    @Test
    void aSuccessfulWriteLeavesNoHint() throws Exception {
        coordinator.write(value(5, "v"), 3, 3).get(5, TimeUnit.SECONDS);
        assertThat(hinted).isEmpty();
    }

    @Test
    void aReadReturnsTheNewestAnswer() throws Exception {
        r0.stored = value(10, "old");
        r1.stored = value(20, "newest");
        r2.stored = Entry.tombstone(KEY, 15);
        assertThat(coordinator.read(KEY, 3, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(20, "newest"));
    }

    @Test
    void aNewerTombstoneWinsAndIsReturned() throws Exception {
        r0.stored = value(10, "old");
        r1.stored = Entry.tombstone(KEY, 30);
        assertThat(coordinator.read(KEY, 3, 3).get(5, TimeUnit.SECONDS)).isEqualTo(Entry.tombstone(KEY, 30));
    }

    @Test
    void aReadOfAMissingKeyIsNull() throws Exception {
        assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isNull();
    }

    @Test
    void aReadRepairsTheStaleReplicasItAsked() throws Exception {
        r0.stored = value(10, "old");
        r1.stored = value(20, "newest");
        coordinator.read(KEY, 1, 3).get(5, TimeUnit.SECONDS);
        // background is Runnable::run and the fakes answer at once: the repair is done
        assertThat(r0.writes).containsExactly(value(20, "newest"));
        assertThat(r2.writes).containsExactly(value(20, "newest"));
        assertThat(r1.writes).isEmpty();
        assertThat(coordinator.readRepairs()).isEqualTo(2);
    }

    @Test
    void aReadAdvancesTheClockPastVersionsItSees() throws Exception {
        long ahead = HybridLogicalClock.fromPhysicalMs(1_400); // within the 500 ms bound of the 1,000 ms clock
        r1.stored = value(ahead, "future");
        coordinator.read(KEY, 3, 3).get(5, TimeUnit.SECONDS);
        assertThat(clock.now()).isGreaterThan(ahead);
    }

    @Test
    void aReadAnswerFromAClockTooFarAheadIsNotUsedAndDoesNotMoveTheClock() throws Exception {
        long far = HybridLogicalClock.fromPhysicalMs(5_000);
        r0.stored = value(10, "now");
        r1.stored = value(far, "skewed");
        r2.stored = value(10, "now");
        assertThat(coordinator.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(10, "now"));
        assertThat(clock.now()).isLessThan(far);
        r2.fails(n -> new ReplicaException.Timeout(n, 1000));
        assertThat(cause(coordinator.read(KEY, 2, 3)))
                .as("the refused answer counts as failed")
                .isInstanceOf(QuorumException.NotEnoughAnswers.class);
    }

    @Test
    void aWriteThatLosesToAVersionTooFarAheadFailsInsteadOfAdoptingIt() throws Exception {
        long far = Long.MAX_VALUE - 1; // what a forged internal write once left behind
        r1.stored = value(far, "poison");
        r2.stored = value(far, "poison");
        Throwable failure = cause(coordinator.write(value(clock.now(), "mine"), 2, 3));
        assertThat(failure).isInstanceOf(QuorumException.NotEnoughAnswers.class);
        assertThat(clock.now())
                .as("the clock is not dragged to 2^63")
                .isLessThan(HybridLogicalClock.fromPhysicalMs(2_000));
    }

    @Test
    void ackAndFromOutsideTheirRangeAreRefused() {
        for (int[] p : new int[][] {{0, 3}, {4, 3}, {3, 2}, {1, 0}, {1, 4}}) {
            assertThatThrownBy(() -> coordinator.write(value(1, "v"), p[0], p[1]))
                    .as("ack=%d from=%d", p[0], p[1])
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> coordinator.read(KEY, p[0], p[1])).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aWriteGoesToExactlyTheFirstFromReplicas() throws Exception {
        for (int from = 1; from <= 3; from++) {
            FakeReplica[] all = {r0, r1, r2};
            for (FakeReplica r : all) {
                r.writes.clear();
            }
            coordinator.write(value(100 + from, "v"), from, from).get(5, TimeUnit.SECONDS);
            List<NodeId> written = new ArrayList<>();
            for (FakeReplica r : all) {
                if (!r.writes.isEmpty()) {
                    written.add(r.node);
                }
            }
            assertThat(written)
                    .containsExactlyInAnyOrderElementsOf(
                            coordinator.placement().current().replicas(KEY, from));
        }
    }

    // ------------------------------------------- quorum reads write back before answering

    /** A coordinator whose background executor only queues, so background repairs can be told apart. */
    final List<Runnable> queued = Collections.synchronizedList(new ArrayList<>());

    final Coordinator queuing = new Coordinator(
            TOPOLOGY,
            List.of(r0, r1, r2),
            liveness,
            (target, entry) -> {
                hinted.add(target);
                return CompletableFuture.completedFuture(null);
            },
            clock,
            queued::add);

    @Test
    void aQuorumReadThatSeesDifferingVersionsAnswersOnlyOnceAQuorumHoldsTheNewest() throws Exception {
        r0.stored = value(20, "new");
        r1.stored = value(10, "old");
        r2.hangs();
        CompletableFuture<Object> writeBack = new CompletableFuture<>();
        r1.writeBehaviour = e -> writeBack;
        CompletableFuture<Entry> read = queuing.read(KEY, 2, 3);
        assertThat(read)
                .as("the stale replica has not acknowledged the newest yet")
                .isNotDone();
        writeBack.complete(null);
        assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(value(20, "new"));
        assertThat(r1.stored).isEqualTo(value(20, "new"));
        assertThat(queued).as("nothing left for the background").isEmpty();
    }

    @Test
    void aQuorumReadWritesBackToReplicasThatHaveNotAnsweredAndCountsTheFirstAcks() throws Exception {
        // r1 answered stale and its write-back fails; r2 never answered the read but takes the write-back
        r0.stored = value(20, "new");
        r1.stored = value(10, "old");
        CompletableFuture<Object> r2Read = new CompletableFuture<>();
        r2.behaviour = n -> r2Read;
        r2.writeBehaviour = e -> CompletableFuture.completedFuture(null);
        r1.writeBehaviour = e -> CompletableFuture.failedFuture(new ReplicaException.Failed(N1, "500", null));
        assertThat(queuing.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(20, "new"));
        assertThat(r2.stored).isEqualTo(value(20, "new"));
    }

    @Test
    void aQuorumReadWhoseWriteBackCannotReachAQuorumFailsWithTheTimeout504() throws Exception {
        r0.stored = value(20, "new");
        r1.stored = value(10, "old");
        r2.fails(n -> new ReplicaException.Timeout(n, 1000));
        r1.writeBehaviour = e -> CompletableFuture.failedFuture(new ReplicaException.Timeout(N1, 1000));
        Throwable failure = cause(queuing.read(KEY, 2, 3));
        assertThat(failure)
                .isInstanceOf(QuorumException.NotEnoughAnswers.class)
                .hasMessageStartingWith("timeout:")
                .hasMessageContaining("1 of 3 replicas answered, 2 needed");
    }

    @Test
    void aQuorumReadOfAMissingCopyWritesTheEntryBack() throws Exception {
        r0.stored = null;
        r1.stored = Entry.tombstone(KEY, 30);
        r2.hangs();
        r2.writeBehaviour = e -> new CompletableFuture<>();
        assertThat(queuing.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(Entry.tombstone(KEY, 30));
        assertThat(r0.stored).as("the tombstone is written back too").isEqualTo(Entry.tombstone(KEY, 30));
    }

    @Test
    void aQuorumReadWhoseAnswersAgreeWritesNothingBeforeAnswering() throws Exception {
        r0.stored = value(20, "same");
        r1.stored = value(20, "same");
        r2.stored = value(10, "old");
        CompletableFuture<Object> late = new CompletableFuture<>();
        r2.behaviour = n -> late;
        assertThat(queuing.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(20, "same"));
        assertThat(r0.writes).isEmpty();
        assertThat(r1.writes).isEmpty();
        late.complete(null); // the late stale answer is repaired in the background, as before
        assertThat(queued).hasSize(1);
        r2.behaviour = n -> CompletableFuture.completedFuture(null);
        queued.getFirst().run();
        assertThat(r2.stored).isEqualTo(value(20, "same"));
    }

    @Test
    void aWriteBackToAReplicaThatHoldsANewerVersionCountsForTheQuorum() throws Exception {
        // a write newer than what the read saw landed on r1 meanwhile: r1 holds more than the newest
        r0.stored = value(20, "seen");
        r1.stored = null;
        r2.hangs();
        r1.writeBehaviour = e -> {
            r1.stored = value(40, "newer");
            return CompletableFuture.completedFuture(null);
        };
        assertThat(queuing.read(KEY, 2, 3).get(5, TimeUnit.SECONDS)).isEqualTo(value(20, "seen"));
        assertThat(r1.stored).isEqualTo(value(40, "newer"));
    }

    @Test
    void aNonQuorumReadAnswersAtOnceAndRepairsOnlyInTheBackground() throws Exception {
        r0.stored = value(20, "new");
        r1.stored = value(10, "old");
        r2.stored = value(10, "old");
        r1.writeBehaviour = e -> new CompletableFuture<>(); // would hold up a blocking write-back forever
        // the fastest answer, whichever it is: nothing waits for a write-back
        assertThat(queuing.read(KEY, 1, 3).get(5, TimeUnit.SECONDS)).isIn(value(20, "new"), value(10, "old"));
        assertThat(queued).as("one background repair per stale replica").hasSize(2);
        // ack=1 of from=2 is no quorum either
        queued.clear();
        assertThat(queuing.read(KEY, 1, 2).get(5, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void quorumIsAMajorityOfFrom() {
        assertThat(Coordinator.isQuorum(2, 3)).isTrue();
        assertThat(Coordinator.isQuorum(1, 1)).isTrue();
        assertThat(Coordinator.isQuorum(1, 2)).isFalse();
        assertThat(Coordinator.isQuorum(2, 4)).isFalse();
        assertThat(Coordinator.isQuorum(3, 4)).isTrue();
        assertThat(Coordinator.isQuorum(1, 3)).isFalse();
    }
}
