package io.ringbase.faults.client;

import io.ringbase.faults.history.History;
import io.ringbase.faults.history.Op;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * Concurrent clients, client {@code c} talking to coordinator {@code c mod n}, each running one operation
 * at a time and recording it in a {@link History}. Two workloads interleave:
 *
 * <ul>
 *   <li><b>registers</b> (keys {@code r-<slot>-<generation>}): reads, writes of unique values and deletes
 *       on {@link #REGISTER_SLOTS} keys at a time, for the linearizability checker; a key is retired
 *       after {@code keyLifetimeMs} (as Jepsen's independent keys, but by time rather than by count, so
 *       that a key lives across a fault's injection and heal however fast the clients go), and the slots'
 *       generations are staggered by a {@link #REGISTER_SLOTS}-th of that, so keys do not all change at
 *       once;</li>
 *   <li><b>set</b> (keys {@code s-c<client>-<n>}): each key written once with a unique value, some deleted
 *       once after an acknowledged write, for the lost-write, resurrection and scan checkers.</li>
 * </ul>
 * Every request uses the default quorum ({@code ack = from/2 + 1} of all nodes).
 */
public final class Workload {

    /** Register keys in use at once. */
    static final int REGISTER_SLOTS = 6;
    /** Pause between one client's operations (ms). */
    static final long THINK_MS = 3;

    private final List<NodeApi> coordinators;
    private final History history;
    private final int clients;
    private final long seed;
    private final long keyLifetimeNanos;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;
    private volatile long startNanos;

    /**
     * Clients that have not started yet ({@link #start}).
     *
     * @param coordinators  one API per node, by node index
     * @param keyLifetimeMs how long each register key is used before its slot moves on to a new key (ms)
     * @throws IllegalArgumentException if {@code keyLifetimeMs} is not positive
     */
    public Workload(List<NodeApi> coordinators, History history, int clients, long seed, long keyLifetimeMs) {
        if (keyLifetimeMs < 1) {
            throw new IllegalArgumentException("register key lifetime must be positive, got " + keyLifetimeMs + " ms");
        }
        this.coordinators = coordinators;
        this.history = history;
        this.clients = clients;
        this.seed = seed;
        this.keyLifetimeNanos = keyLifetimeMs * 1_000_000;
    }

    /**
     * The register key of {@code slot} at {@code elapsedNanos} since the clients started: generation
     * {@code (elapsed + slot * lifetime / REGISTER_SLOTS) / lifetime}.
     */
    static String registerKey(int slot, long elapsedNanos, long keyLifetimeNanos) {
        long stagger = keyLifetimeNanos / REGISTER_SLOTS * slot;
        return "r-" + slot + "-" + (elapsedNanos + stagger) / keyLifetimeNanos;
    }

    /** Whether {@code key} belongs to the register workload. */
    public static boolean isRegisterKey(String key) {
        return key.startsWith("r-");
    }

    /** The set workload's key range, {@code [SET_START, SET_END)}. */
    public static final String SET_START = "s-";

    public static final String SET_END = "s.";

    public void start() {
        startNanos = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            int client = c;
            threads.add(Thread.ofPlatform().daemon().name("faults-client-" + c).start(() -> run(client)));
        }
    }

    /**
     * Asks every client to stop after its current operation and waits for them.
     *
     * @throws IllegalStateException if a client is still running a minute later (its operations time out in seconds)
     */
    public void stop() throws InterruptedException {
        stopping = true;
        for (Thread t : threads) {
            if (!t.join(Duration.ofMinutes(1))) {
                throw new IllegalStateException(t.getName() + " did not stop within a minute");
            }
        }
    }

    private void run(int client) {
        Random random = new Random(seed * 31 + client);
        NodeApi api = coordinators.get(client % coordinators.size());
        String process = "c" + client + "@n" + (client % coordinators.size());
        ArrayDeque<String> deletable = new ArrayDeque<>();
        int seq = 0;
        while (!stopping) {
            seq++;
            String value = "c" + client + "-" + seq;
            if (random.nextInt(10) < 2) {
                cas(process, api, random, value);
            } else if (random.nextInt(10) < 6) {
                int slot = random.nextInt(REGISTER_SLOTS);
                String key = registerKey(slot, System.nanoTime() - startNanos, keyLifetimeNanos);
                int dice = random.nextInt(10);
                if (dice < 5) {
                    record(process, Op.Fn.READ, key, null, () -> api.get(key));
                } else if (dice < 9) {
                    record(process, Op.Fn.WRITE, key, value, () -> api.put(key, value));
                } else {
                    record(process, Op.Fn.DELETE, key, null, () -> api.delete(key));
                }
            } else if (!deletable.isEmpty() && random.nextInt(4) == 0) {
                String key = deletable.poll();
                record(process, Op.Fn.DELETE, key, null, () -> api.delete(key));
            } else {
                String key = "s-c" + client + "-" + seq;
                Op op = record(process, Op.Fn.WRITE, key, value, () -> api.put(key, value));
                if (op.outcome() == Op.Outcome.OK) {
                    deletable.add(key);
                }
            }
            LockSupport.parkNanos(THINK_MS * 1_000_000);
        }
    }

    /**
     * One compare-and-set step on a key of its own ({@link #CAS_SLOTS} at a time, never written
     * unconditionally): a read for the value and its ETag (recorded as a read), then a PUT of a new unique
     * value with {@code If-Match} that ETag ({@code If-None-Match: *} when there was none), recorded as
     * {@link Op.Fn#CAS} from the value read, or {@link Op.Fn#CAS_REFUSED} on a 412.
     */
    private void cas(String process, NodeApi api, Random random, String value) {
        int slot = random.nextInt(CAS_SLOTS);
        String key = "r-cas-"
                + registerKey(slot, System.nanoTime() - startNanos, keyLifetimeNanos)
                        .substring(2);
        NodeApi.Tagged[] got = new NodeApi.Tagged[1];
        Op read = record(process, Op.Fn.READ, key, null, () -> {
            got[0] = api.getTagged(key);
            return got[0].answer();
        });
        if (read.outcome() != Op.Outcome.OK || (read.value() != null && got[0].etag() == null)) {
            return;
        }
        String expected = read.value();
        long invoke = System.nanoTime();
        NodeApi.Answer a = api.putIf(key, value, got[0].etag());
        long complete = System.nanoTime();
        boolean refused = a.outcome() == Op.Outcome.OK && "412".equals(a.value());
        history.add(new Op(
                process,
                refused ? Op.Fn.CAS_REFUSED : Op.Fn.CAS,
                key,
                Op.cas(expected, value),
                invoke,
                complete,
                a.outcome(),
                a.note()));
    }

    /** Compare-and-set keys in use at once (register keys {@code r-cas-<slot>-<generation>}). */
    static final int CAS_SLOTS = 2;

    /** Pause after a refused connection (the coordinator is down), so a client does not spin (ms). */
    static final long REFUSED_BACKOFF_MS = 50;

    private Op record(
            String process, Op.Fn f, String key, String value, java.util.function.Supplier<NodeApi.Answer> call) {
        long invoke = System.nanoTime();
        NodeApi.Answer a = call.get();
        long complete = System.nanoTime();
        Op op = new Op(process, f, key, f == Op.Fn.READ ? a.value() : value, invoke, complete, a.outcome(), a.note());
        history.add(op);
        if (a.outcome() == Op.Outcome.FAIL && a.note().startsWith("connect")) {
            LockSupport.parkNanos(REFUSED_BACKOFF_MS * 1_000_000);
        }
        return op;
    }
}
