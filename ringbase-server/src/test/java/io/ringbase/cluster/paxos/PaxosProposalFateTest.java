package io.ringbase.cluster.paxos;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a coordinator learns the fate of its own proposal after it lost touch mid-round, in one scripted
 * schedule: its proposal is accepted by two replicas (chosen), its commit is lost and it is cut off;
 * another coordinator finishes that proposal and commits 17 more values over it; then a commit of a
 * value from before it arrives late at every replica (over TCP, a message held by a partition arrives
 * once it heals). When the first coordinator is back, it must not answer "refused": its value was
 * applied. With more commits after it than the replicas remember, the only honest answers are
 * "applied" or "may have been applied".
 */
class PaxosProposalFateTest {

    private static final int NODES = 3;
    private static final byte[] KEY = "k".getBytes(UTF_8);

    private final ExecutorService local = Executors.newFixedThreadPool(4);
    private final List<PaxosAcceptor> acceptors = new ArrayList<>();
    private final List<InMemoryEngine> engines = new ArrayList<>();
    private final List<HybridLogicalClock> clocks = new ArrayList<>();
    private final CountDownLatch firstCommit = new CountDownLatch(1);

    /** What the cut-off coordinator's messages meet. */
    private enum Link {
        /** Prepares and proposals arrive; the first commit is lost, and everything after it. */
        LOSES_COMMIT,
        CUT,
        UP
    }

    private volatile Link link = Link.LOSES_COMMIT;

    @AfterEach
    void stop() {
        local.shutdownNow();
    }

    private Replica replica(NodeId node, boolean fromCutOff) {
        return new PaxosReplica(node, message -> {
            if (fromCutOff) {
                boolean commit = PaxosMessages.decodeRequest(message) instanceof PaxosMessages.Commit;
                if (link == Link.LOSES_COMMIT && commit) {
                    link = Link.CUT;
                    firstCommit.countDown();
                }
                if (link == Link.CUT) {
                    return CompletableFuture.failedFuture(new ReplicaException.Timeout(node, 1));
                }
            }
            return CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return acceptors.get(node.index()).handle(message);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    },
                    local);
        });
    }

    private PaxosProposer proposer(int node, boolean cutOff, List<String> urls, Path dir) {
        Placement placement = Placement.of(Topology.parse(urls, urls.get(node)));
        // the cut-off coordinator's own acceptor takes no part: its two peers are its majority
        PaxosAcceptor own = cutOff
                ? new PaxosAcceptor(
                        engines.get(node),
                        new PaxosStore(new InMemoryEngine(), dir),
                        clocks.get(node),
                        new PaxosAdmission(null, () -> "out of this schedule", ReadGate.OPEN))
                : acceptors.get(node);
        return new PaxosProposer(
                () -> placement,
                n -> replica(n, cutOff),
                own,
                epoch -> {},
                local,
                clocks.get(node),
                TimeSource.SYSTEM,
                20_000);
    }

    private Entry newest() throws Exception {
        Entry e = null;
        for (InMemoryEngine engine : engines) {
            e = Entry.newer(e, engine.get(KEY));
        }
        return e;
    }

    @Test
    @Timeout(60)
    void aProposalFinishedByAnotherCoordinatorIsNeverReportedRefused(@TempDir Path dir) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            urls.add("http://n" + i + ":7000");
            engines.add(new InMemoryEngine());
            clocks.add(new HybridLogicalClock(i + 1));
            acceptors.add(new PaxosAcceptor(engines.get(i), new PaxosStore(new InMemoryEngine(), dir), clocks.get(i)));
        }
        PaxosProposer cutOff = proposer(0, true, urls, dir);
        PaxosProposer other = proposer(1, false, urls, dir);

        // the first value, committed everywhere through the coordinator that stays connected
        link = Link.UP;
        assertThat(other.cas(KEY, "w".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfAbsent())
                        .get(10, TimeUnit.SECONDS)
                        .applied())
                .isTrue();
        Entry w = newest();

        // the cut-off coordinator's proposal is chosen (accepted by nodes 1 and 2), its commit is lost
        link = Link.LOSES_COMMIT;
        CompletableFuture<CasResult> lost =
                cutOff.cas(KEY, "x".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfMatch(w.version()));
        assertThat(firstCommit.await(10, TimeUnit.SECONDS)).isTrue();

        // the other coordinator finishes it, then commits 17 values over it
        boolean sawX = false;
        int applied = 0;
        for (int i = 0; applied < PaxosState.RECENT + 1 && i < 100; i++) {
            Entry current = newest();
            CasResult r = other.cas(
                            KEY, ("y" + i).getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfMatch(current.version()))
                    .get(10, TimeUnit.SECONDS);
            sawX |= "x".equals(new String(newest().value(), UTF_8)) || !r.applied();
            if (r.applied()) {
                applied++;
            }
        }
        assertThat(applied).isEqualTo(PaxosState.RECENT + 1);
        assertThat(sawX).as("the other coordinator finished the lost proposal").isTrue();

        // an old commit arrives late everywhere, then the cut-off coordinator is back
        for (PaxosAcceptor a : acceptors) {
            var _ = a.handle(new PaxosMessages.Commit(1, w));
        }
        link = Link.UP;
        Throwable failure = catchThrowable(() -> lost.get(30, TimeUnit.SECONDS));
        if (failure == null) {
            assertThat(lost.get().applied())
                    .as("its value was committed: 412 would be a lie")
                    .isTrue();
        } else {
            assertThat(failure).isInstanceOf(ExecutionException.class);
            assertThat(failure.getCause())
                    .isInstanceOf(QuorumException.CasTimeout.class)
                    .hasMessageContaining("may have been applied");
        }
    }
}
