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
import io.ringbase.faults.checker.Linearizability;
import io.ringbase.faults.checker.Verdict;
import io.ringbase.faults.history.Op;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compare-and-set and quorum reads of one key, in memory, checked for linearizability against the
 * register model of the fault suite ({@link Linearizability}). Three nodes, each an acceptor with its own
 * engine and a proposer; a network that delays messages, loses some, and is cut by partitions that change
 * every few tens of milliseconds (a node isolated, or a bridge: two nodes that reach only the third).
 * As over TCP, a message sent across a cut is not lost but held until the cut heals, so requests a
 * proposer gave up on (its call timed out) still arrive later, in any order with newer ones. Reads are
 * the coordinator's ABD quorum reads: the newest of two replicas' entries, written back until two hold it.
 * Clients do what the fault suite's compare-and-set workload does: read the key with its version, then
 * write a unique value {@code If-Match} that version.
 */
class PaxosLinearizabilityModelTest {

    private static final int NODES = 3;
    private static final long CALL_TIMEOUT_MS = 15;

    private final ScheduledExecutorService network = Executors.newScheduledThreadPool(4);
    private final ExecutorService local = Executors.newFixedThreadPool(4);
    private final List<PaxosAcceptor> acceptors = new ArrayList<>();
    private final List<InMemoryEngine> engines = new ArrayList<>();
    private final List<PaxosProposer> proposers = new ArrayList<>();
    /** cut[a][b]: messages from a to b wait. Written by the partition thread, read by the network. */
    private final boolean[][] cut = new boolean[NODES][NODES];

    @AfterEach
    void stop() {
        network.shutdownNow();
        local.shutdownNow();
    }

    private synchronized boolean isCut(int from, int to) {
        return cut[from][to];
    }

    private synchronized void heal() {
        for (boolean[] row : cut) {
            java.util.Arrays.fill(row, false);
        }
    }

    private synchronized void partition(Random random) {
        for (boolean[] row : cut) {
            java.util.Arrays.fill(row, false);
        }
        int a = random.nextInt(NODES);
        switch (random.nextInt(3)) {
            case 0 -> {} // healed
            case 1 -> { // a isolated
                for (int o = 0; o < NODES; o++) {
                    if (o != a) {
                        cut[a][o] = cut[o][a] = true;
                    }
                }
            }
            default -> { // a is the bridge: the other two cannot talk
                int x = (a + 1) % NODES;
                int y = (a + 2) % NODES;
                cut[x][y] = cut[y][x] = true;
            }
        }
    }

    /**
     * Delivers {@code task} from node {@code from} to {@code to} after a random delay, later if the link is
     * cut then (held until it heals, as TCP retransmits), or never with a small probability.
     */
    private void deliver(int from, int to, Runnable task) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        if (r.nextInt(100) < 2) {
            return; // lost
        }
        var _ = network.schedule(
                () -> {
                    if (from != to && isCut(from, to)) {
                        deliver(from, to, task);
                    } else {
                        task.run();
                    }
                },
                r.nextInt(r.nextInt(10) == 0 ? 150_000 : 3_000),
                TimeUnit.MICROSECONDS);
    }

    /** A call from {@code from} to {@code to}: fails as a timeout after {@link #CALL_TIMEOUT_MS}. */
    private <T> CompletableFuture<T> call(int from, int to, Supplier<T> handler) {
        CompletableFuture<T> out = new CompletableFuture<>();
        var _ = network.schedule(
                () -> out.completeExceptionally(
                        new ReplicaException.Timeout(new NodeId(to, "n" + to, 7000), CALL_TIMEOUT_MS)),
                CALL_TIMEOUT_MS,
                TimeUnit.MILLISECONDS);
        deliver(from, to, () -> {
            T reply;
            try {
                reply = handler.get();
            } catch (RuntimeException e) {
                deliver(to, from, () -> out.completeExceptionally(e));
                return;
            }
            deliver(to, from, () -> out.complete(reply));
        });
        return out;
    }

    private Replica remote(int from, NodeId node) {
        int to = node.index();
        return new PaxosReplica(node, message -> {
            return call(from, to, () -> {
                try {
                    return acceptors.get(to).handle(message);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        });
    }

    private void cluster(Path dir) {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            urls.add("http://n" + i + ":7000");
        }
        List<HybridLogicalClock> clocks = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            InMemoryEngine engine = new InMemoryEngine();
            engines.add(engine);
            clocks.add(new HybridLogicalClock(i + 1)); // a node's proposer and acceptor share its clock
            acceptors.add(new PaxosAcceptor(engine, new PaxosStore(new InMemoryEngine(), dir), clocks.get(i)));
        }
        for (int i = 0; i < NODES; i++) {
            Placement placement = Placement.of(Topology.parse(urls, urls.get(i)));
            int self = i;
            proposers.add(new PaxosProposer(
                    () -> placement,
                    n -> remote(self, n),
                    acceptors.get(i),
                    epoch -> {},
                    local,
                    clocks.get(i),
                    TimeSource.SYSTEM,
                    1_000));
        }
    }

    /**
     * A quorum read through node {@code via}: the newest of the first two answers, written back to the
     * stale one so that two hold it (ABD's read), or {@code null} if two answers or the write-back did not
     * come (the read failed).
     */
    private Entry[] read(int via, byte[] key) throws Exception {
        CompletableFuture<List<Object[]>> two = new CompletableFuture<>();
        List<Object[]> answers = new ArrayList<>();
        int[] failed = {0};
        for (int t = 0; t < NODES; t++) {
            int to = t;
            var _ = call(via, to, () -> {
                        try {
                            return java.util.Optional.ofNullable(engines.get(to).get(key));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .whenComplete((e, failure) -> {
                        synchronized (answers) {
                            if (failure != null) {
                                if (++failed[0] > NODES - 2) {
                                    two.completeExceptionally(failure);
                                }
                            } else if (answers.size() < 2) {
                                answers.add(new Object[] {to, e.orElse(null)});
                                if (answers.size() == 2) {
                                    two.complete(List.copyOf(answers));
                                }
                            }
                        }
                    });
        }
        List<Object[]> got;
        try {
            got = two.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return null;
        }
        Entry a = (Entry) got.get(0)[1];
        Entry b = (Entry) got.get(1)[1];
        Entry newest = Entry.newer(a, b);
        if (newest != null && (!newest.equals(a) || !newest.equals(b))) {
            int stale = (Integer) (newest.equals(a) ? got.get(1)[0] : got.get(0)[0]);
            try {
                call(via, stale, () -> {
                            try {
                                engines.get(stale).apply(newest);
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                            return Boolean.TRUE;
                        })
                        .get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                return null; // the write-back failed: so does the read
            }
        }
        return new Entry[] {newest};
    }

    @Test
    @Timeout(120)
    void readsAndCompareAndSetsUnderPartitionsAreLinearizable(@TempDir Path dir) throws Exception {
        cluster(dir);
        int clients = 5;
        int keys = Integer.getInteger("ringbase.paxosModel.keys", 10);
        long perKeyMs = 600;
        ConcurrentLinkedQueue<Op> history = new ConcurrentLinkedQueue<>();
        AtomicInteger applied = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger unknown = new AtomicInteger();
        Random partitions = new Random(ThreadLocalRandom.current().nextLong());
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            for (int k = 0; k < keys; k++) {
                String keyName = "k" + k;
                byte[] key = keyName.getBytes(UTF_8);
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(perKeyMs);
                List<Future<?>> done = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    int client = c;
                    done.add(pool.submit(() -> {
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        int seq = 0;
                        while (System.nanoTime() < end) {
                            int via = r.nextInt(NODES);
                            String process = "c" + client + "@n" + via;
                            long t0 = System.nanoTime();
                            Entry[] read = read(via, key);
                            long t1 = System.nanoTime();
                            if (read == null) {
                                continue;
                            }
                            Entry cur = read[0];
                            String value = cur == null ? null : new String(cur.value(), UTF_8);
                            history.add(new Op(process, Op.Fn.READ, keyName, value, t0, t1, Op.Outcome.OK, ""));
                            String next = "c" + client + "-" + ++seq;
                            Condition condition =
                                    cur == null ? new Condition.IfAbsent() : new Condition.IfMatch(cur.version());
                            long t2 = System.nanoTime();
                            Op.Fn f;
                            Op.Outcome outcome = Op.Outcome.OK;
                            try {
                                CasResult result = proposers
                                        .get(via)
                                        .cas(key, next.getBytes(UTF_8), Entry.NO_EXPIRY, condition)
                                        .get(10, TimeUnit.SECONDS);
                                f = result.applied() ? Op.Fn.CAS : Op.Fn.CAS_REFUSED;
                                (result.applied() ? applied : refused).incrementAndGet();
                            } catch (ExecutionException e) {
                                assertThat(e.getCause()).isInstanceOf(QuorumException.CasTimeout.class);
                                f = Op.Fn.CAS;
                                outcome = Op.Outcome.UNKNOWN;
                                unknown.incrementAndGet();
                            }
                            history.add(new Op(
                                    process, f, keyName, Op.cas(value, next), t2, System.nanoTime(), outcome, ""));
                        }
                        return null;
                    }));
                }
                // the partitions change every 50 ms while the clients run, and heal once they are done
                var nemesis = network.scheduleAtFixedRate(() -> partition(partitions), 0, 50, TimeUnit.MILLISECONDS);
                try {
                    for (Future<?> f : done) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                } finally {
                    nemesis.cancel(false);
                    heal();
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, List<Op>> byKey = new java.util.TreeMap<>();
        for (Op op : history) {
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        Verdict verdict = Linearizability.check(byKey, Linearizability.DEFAULT_MAX_STEPS);
        System.out.printf(
                "Paxos linearizability model: %s; %d applied, %d refused, %d unknown%n",
                verdict.summary(), applied.get(), refused.get(), unknown.get());
        assertThat(verdict.problems()).isEmpty();
        assertThat(applied.get()).isPositive();
    }
}
