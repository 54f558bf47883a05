package io.ringbase.cluster.paxos;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Paxos of compare-and-set in memory: three acceptors (one per node, each with its own engine and
 * store) and a proposer on every node, whose messages to the other nodes are delayed at random, and
 * some lost on the way there or back (the call then fails as a timeout). Clients increment one counter by
 * compare-and-set through random coordinators. What must hold whatever the schedule: no two acknowledged
 * increments wrote the same value (none was based on a version another acknowledged one had replaced:
 * no lost update), and the counter ends between the acknowledged increments and those plus the ones
 * whose outcome was unknown (504).
 */
class PaxosModelTest {

    private static final int NODES = 3;
    private static final byte[] KEY = "counter".getBytes(UTF_8);

    private final ScheduledExecutorService network = Executors.newScheduledThreadPool(4);
    private final ExecutorService local = Executors.newFixedThreadPool(4);
    private final List<PaxosAcceptor> acceptors = new ArrayList<>();
    private final List<InMemoryEngine> engines = new ArrayList<>();
    private final List<PaxosProposer> proposers = new ArrayList<>();
    private volatile double lossRate;

    @AfterEach
    void stop() {
        network.shutdownNow();
        local.shutdownNow();
    }

    /** A remote replica whose Paxos calls cross a lossy, reordering network. */
    private Replica remote(NodeId node) {
        return new PaxosReplica(node, message -> {
            CompletableFuture<byte[]> out = new CompletableFuture<>();
            ThreadLocalRandom r = ThreadLocalRandom.current();
            boolean lostThere = r.nextDouble() < lossRate;
            boolean lostBack = r.nextDouble() < lossRate;
            var _ = network.schedule(
                    () -> {
                        if (lostThere) {
                            out.completeExceptionally(new ReplicaException.Timeout(node, 3));
                            return;
                        }
                        try {
                            byte[] reply = acceptors.get(node.index()).handle(message);
                            if (lostBack) {
                                out.completeExceptionally(new ReplicaException.Timeout(node, 3));
                            } else {
                                out.complete(reply);
                            }
                        } catch (Exception e) {
                            out.completeExceptionally(e);
                        }
                    },
                    r.nextInt(3000),
                    TimeUnit.MICROSECONDS);
            return out;
        });
    }

    private void cluster(Path dir) {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            urls.add("http://n" + i + ":7000");
        }
        for (int i = 0; i < NODES; i++) {
            InMemoryEngine engine = new InMemoryEngine();
            engines.add(engine);
            acceptors.add(new PaxosAcceptor(
                    engine, new PaxosStore(new InMemoryEngine(), dir), new HybridLogicalClock(i + 1)));
        }
        for (int i = 0; i < NODES; i++) {
            Placement placement = Placement.of(Topology.parse(urls, urls.get(i)));
            proposers.add(new PaxosProposer(
                    () -> placement,
                    this::remote,
                    acceptors.get(i),
                    epoch -> {},
                    local,
                    new HybridLogicalClock(i + 1),
                    TimeSource.SYSTEM,
                    3_000));
        }
    }

    /** The newest entry any node's engine holds for the key. */
    private Entry newest() throws Exception {
        Entry e = null;
        for (InMemoryEngine engine : engines) {
            e = Entry.newer(e, engine.get(KEY));
        }
        return e;
    }

    private CasResult cas(int via, long ifVersion, int value) throws Exception {
        return proposers
                .get(via)
                .cas(KEY, Integer.toString(value).getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfMatch(ifVersion))
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    @Timeout(120)
    void concurrentIncrementsOverALossyNetworkLoseNoneAndApplyNoneTwice(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        cluster(dir);
        CasResult created = proposers
                .get(0)
                .cas(KEY, "0".getBytes(UTF_8), Entry.NO_EXPIRY, new Condition.IfAbsent())
                .get(10, TimeUnit.SECONDS);
        assertThat(created.applied()).isTrue();
        lossRate = 0.05;
        int clients = 6;
        int each = 30;
        Set<Integer> written = java.util.Collections.synchronizedSet(new HashSet<>());
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger unknown = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                done.add(pool.submit(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    for (int i = 0; i < each; ) {
                        Entry cur = newest(); // a stale read only costs a refusal
                        int n = Integer.parseInt(new String(cur.value(), UTF_8));
                        try {
                            if (cas(r.nextInt(NODES), cur.version(), n + 1).applied()) {
                                acked.incrementAndGet();
                                if (!written.add(n + 1)) {
                                    duplicates.incrementAndGet();
                                }
                                i++;
                            }
                        } catch (ExecutionException e) {
                            assertThat(e.getCause()).isInstanceOf(QuorumException.CasTimeout.class);
                            unknown.incrementAndGet();
                            i++;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        lossRate = 0;
        // one more round with no loss finishes whatever proposal is left half done
        Entry before = newest();
        CasResult last = cas(0, before.version(), -1);
        int counter = last.applied()
                ? Integer.parseInt(new String(before.value(), UTF_8))
                : Integer.parseInt(new String(newest().value(), UTF_8));
        if (!last.applied()) { // a half-done proposal was finished first: read it and stop there
            counter = Integer.parseInt(new String(newest().value(), UTF_8));
        }
        System.out.printf(
                "Paxos model: %d acknowledged, %d unknown, counter %d, %d rounds, %d contended%n",
                acked.get(), unknown.get(), counter, rounds(), contended());
        assertThat(duplicates.get())
                .as("increments applied on the same version")
                .isZero();
        assertThat(counter).isBetween(acked.get(), acked.get() + unknown.get());
    }

    private long rounds() {
        return proposers.stream().mapToLong(PaxosProposer::rounds).sum();
    }

    private long contended() {
        return proposers.stream().mapToLong(PaxosProposer::contended).sum();
    }
}
