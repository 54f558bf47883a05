package io.ringbase.cluster.paxos;

import static io.ringbase.cluster.paxos.ParticipantsTest.FOUR;
import static io.ringbase.cluster.paxos.ParticipantsTest.N0;
import static io.ringbase.cluster.paxos.ParticipantsTest.N1;
import static io.ringbase.cluster.paxos.ParticipantsTest.N2;
import static io.ringbase.cluster.paxos.ParticipantsTest.N3;
import static io.ringbase.cluster.paxos.ParticipantsTest.THREE;
import static io.ringbase.cluster.paxos.ParticipantsTest.key;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proposer during a membership change, over four in-memory nodes (n3 joins the ring of n0..n2, or the
 * metadata moves on under a proposer): who must answer, whose read counts, and a round refused for its
 * epoch starting over at the new one.
 */
@Timeout(30)
class PaxosProposerTest {

    private final ExecutorService local = Executors.newFixedThreadPool(4);
    private final List<InMemoryEngine> engines = new ArrayList<>();
    private final List<PaxosAcceptor> acceptors = new ArrayList<>();
    private final List<HybridLogicalClock> clocks = new ArrayList<>();
    private final Set<Integer> down = ConcurrentHashMap.newKeySet();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        local.shutdownNow();
    }

    /** Four nodes; node {@code i}'s acceptor admits by {@code placementOf(i)}; n3 refuses reads (joining). */
    private void nodes(java.util.function.IntFunction<java.util.function.Supplier<Placement>> placementOf) {
        for (int i = 0; i < 4; i++) {
            engines.add(new InMemoryEngine());
            clocks.add(new HybridLogicalClock(i + 1));
            ReadGate moving = i == 3 ? () -> "this node is joining" : ReadGate.OPEN;
            acceptors.add(new PaxosAcceptor(
                    engines.get(i),
                    new PaxosStore(new InMemoryEngine(), dir),
                    clocks.get(i),
                    new PaxosAdmission(placementOf.apply(i), ReadGate.OPEN, moving)));
        }
    }

    private Replica replica(NodeId node) {
        return new PaxosReplica(node, message -> {
            if (down.contains(node.index())) {
                return CompletableFuture.failedFuture(new ReplicaException.Timeout(node, 1));
            }
            return CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return acceptors.get(node.index()).handle(message);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    },
                    local);
        });
    }

    private PaxosProposer proposer(
            java.util.function.Supplier<Placement> placement,
            java.util.function.LongConsumer sawEpoch,
            long timeoutMs) {
        return new PaxosProposer(
                placement,
                this::replica,
                acceptors.get(0),
                sawEpoch,
                local,
                clocks.get(0),
                TimeSource.SYSTEM,
                timeoutMs);
    }

    private static NodeId node(int i) {
        return List.of(N0, N1, N2, N3).get(i);
    }

    private static Placement joining(NodeId self) {
        return new Placement(5, self, 3, THREE, FOUR);
    }

    @Test
    void aRoundNeedsAMajorityOfTheNaturalReplicasPlusThePendingOne() throws Exception {
        nodes(i -> () -> joining(node(i)));
        byte[] k = key(FOUR, N3, true);
        PaxosProposer p = proposer(() -> joining(N0), e -> {}, 500);

        down.add(2); // n0, n1 and the joining n3: 3 of the 4 participants
        CasResult first = p.cas(k, "a".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfAbsent())
                .get(10, TimeUnit.SECONDS);
        assertThat(first.applied()).isTrue();
        assertThat(engines.get(3).get(k)).isNotNull(); // the pending replica took part

        // n0 and n1 are a majority of the natural replicas, but not of natural and pending together
        down.add(3);
        Throwable t = catchThrowable(
                () -> p.cas(k, "b".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfMatch(first.version()))
                        .get(10, TimeUnit.SECONDS));
        assertThat(t).isInstanceOf(ExecutionException.class).cause().isInstanceOf(QuorumException.CasTimeout.class);
        assertThat(t.getCause()).hasMessageContaining("nothing was written");
    }

    @Test
    void aPendingReplicasReadIsIgnored() throws Exception {
        nodes(i -> () -> joining(node(i)));
        byte[] k = key(FOUR, N3, true);
        // the joining node holds a value the natural replicas do not (its read is not the key's state)
        engines.get(3).apply(Entry.value(k, clocks.get(3).now(), "stray".getBytes(UTF_8)));
        down.add(2); // so the joining node's promise is among the three every phase needs
        CasResult r = proposer(() -> joining(N0), e -> {}, 5_000)
                .cas(k, "a".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfAbsent())
                .get(10, TimeUnit.SECONDS);
        assertThat(r.applied()).isTrue();
    }

    /**
     * The schedule the membership fault run found: a value is chosen (accepted by n1, n2 and the joining
     * n3) and its commit has reached only n3 when another coordinator's round gets its promises from n1,
     * n2 and n3. n3's commit must not count as the latest commit while the read ignores n3: paired with
     * the natural replicas' older entry it would be sent to them as "the latest commit" (dropping the
     * chosen proposal they accepted) and the round would decide on the older value.
     */
    @Test
    void aChosenValueCommittedOnlyOnThePendingReplicaIsNotLost() throws Exception {
        nodes(i -> () -> joining(node(i)));
        byte[] k = key(FOUR, N3, true);
        PaxosProposer p = proposer(() -> joining(N0), e -> {}, 5_000);
        CasResult first = p.cas(k, "w".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfAbsent())
                .get(10, TimeUnit.SECONDS);
        assertThat(first.applied()).isTrue();

        // another coordinator (n1) chooses x: promised and accepted by n1, n2, n3; committed on n3 only
        long ballot = clocks.get(1).now();
        Entry x = Entry.value(k, clocks.get(1).now(), "x".getBytes(UTF_8));
        for (int i = 1; i <= 3; i++) {
            assertThat(((PaxosMessages.Promise) acceptors.get(i).handle(new PaxosMessages.Prepare(k, ballot, 5))).ok())
                    .isTrue();
            assertThat(((PaxosMessages.Accepted) acceptors.get(i).handle(new PaxosMessages.Propose(ballot, x, 5))).ok())
                    .isTrue();
        }
        var _ = acceptors.get(3).handle(new PaxosMessages.Commit(ballot, x, 5));

        down.add(0); // this round's promises come from n1, n2 and n3, through a coordinator of no key
        NodeId client = new NodeId(5, "n5", 7000);
        CasResult late = proposer(() -> joining(client), e -> {}, 5_000)
                .cas(k, "y".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfMatch(first.version()))
                .get(10, TimeUnit.SECONDS);
        assertThat(late.applied()).as("x was chosen after w").isFalse();
        assertThat(late.version()).isEqualTo(x.version());
    }

    @Test
    void aProposerOfAnOlderEpochCatchesUpAndStartsOverAtTheNewOne() throws Exception {
        Ring ring = THREE;
        nodes(i -> () -> new Placement(6, node(i), 3, ring, ring));
        AtomicReference<Placement> mine = new AtomicReference<>(new Placement(5, N0, 3, ring, ring));
        List<Long> seen = new CopyOnWriteArrayList<>();
        PaxosProposer p = proposer(
                mine::get,
                epoch -> {
                    seen.add(epoch);
                    mine.set(new Placement(epoch, N0, 3, ring, ring)); // what the metadata follower does
                },
                5_000);
        byte[] k = "k".getBytes(UTF_8);
        CasResult r = p.cas(k, "a".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfAbsent())
                .get(10, TimeUnit.SECONDS);
        assertThat(r.applied()).isTrue();
        assertThat(seen).isNotEmpty().allMatch(e -> e == 6);
        assertThat(p.rounds()).isEqualTo(2); // the round of epoch 5 decided nothing
    }
}
