package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random quorum operations against a model while nodes stop and restart (never more than one down).
 *
 * <p>Each client thread owns its keys (one writer per key), so the model knows the value a key must
 * have: the last acknowledged write. A write that failed (504, or a connection lost to a stopping
 * coordinator) may or may not have landed, so until the key's next acknowledged write a read may see
 * that value or any earlier still-possible one. Every successful quorum read (200 or 404) must be one
 * of the values the model allows. Reruns with {@code -Dringbase.seed=<seed>} use the same choices
 * (the interleaving with the chaos thread differs).
 */
@IntegrationTest
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterModelTest {

    static final int NODES = 3;
    static final int CLIENTS = 4;
    static final int KEYS_PER_CLIENT = 4;
    static final Duration RUN = Duration.ofSeconds(12);

    @TempDir
    Path tmp;

    /** What one key may read as: a set of values, {@code null} standing for "absent". */
    static final class KeyModel {
        final Set<String> allowed = new HashSet<>(Collections.singleton(null));
        final List<String> history = new ArrayList<>();

        void acknowledged(String value, String event) {
            allowed.clear();
            allowed.add(value);
            log(event);
        }

        void ambiguous(String value, String event) {
            allowed.add(value);
            log(event);
        }

        void log(String event) {
            history.add(event);
            if (history.size() > 12) {
                history.removeFirst();
            }
        }
    }

    @Test
    void quorumReadsSeeTheLastAcknowledgedWriteWhileNodesRestart() throws Exception {
        long seed = Long.getLong("ringbase.seed", System.nanoTime());
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicInteger checkedReads = new AtomicInteger();
        AtomicInteger unavailable = new AtomicInteger();
        int restarts = 0; // the chaos loop below, on this thread
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> crashes = Collections.synchronizedList(new ArrayList<>());

        try (LocalCluster c = new LocalCluster(tmp, NODES)) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < CLIENTS; t++) {
                int client = t;
                Random random = new Random(seed + client);
                threads.add(Thread.ofPlatform().name("model-client-" + client).start(() -> {
                    Map<String, KeyModel> model = new HashMap<>();
                    int seq = 0;
                    try {
                        while (!stop.get()) {
                            String key = "c" + client + "-k" + random.nextInt(KEYS_PER_CLIENT);
                            KeyModel m = model.computeIfAbsent(key, k -> new KeyModel());
                            int via = random.nextInt(NODES);
                            int op = random.nextInt(10);
                            LocalCluster.Reply r;
                            if (op < 4) { // PUT
                                String value = key + "-v" + (++seq);
                                r = call(() -> c.put(via, key, value));
                                if (r != null && r.status() == 201) {
                                    m.acknowledged(value, "PUT " + value + " via " + via + ": 201");
                                    acknowledged.incrementAndGet();
                                } else {
                                    m.ambiguous(value, "PUT " + value + " via " + via + ": " + describe(r));
                                    unavailable.incrementAndGet();
                                }
                            } else if (op < 6) { // DELETE
                                r = call(() -> c.delete(via, key));
                                if (r != null && r.status() == 202) {
                                    m.acknowledged(null, "DELETE via " + via + ": 202");
                                    acknowledged.incrementAndGet();
                                } else {
                                    m.ambiguous(null, "DELETE via " + via + ": " + describe(r));
                                    unavailable.incrementAndGet();
                                }
                            } else { // GET
                                r = call(() -> c.get(via, key));
                                if (r == null || (r.status() != 200 && r.status() != 404)) {
                                    m.log("GET via " + via + ": " + describe(r));
                                    unavailable.incrementAndGet();
                                    continue;
                                }
                                String seen = r.status() == 200 ? r.body() : null;
                                m.log("GET via " + via + ": " + r.status() + " " + seen);
                                checkedReads.incrementAndGet();
                                if (!m.allowed.contains(seen)) {
                                    violations.add(key + " read " + seen + " via node " + via + ", allowed " + m.allowed
                                            + "; last events: " + m.history);
                                }
                            }
                        }
                    } catch (Throwable e) {
                        crashes.add(e);
                    }
                }));
            }
            Random chaos = new Random(seed - 1);
            long end = System.nanoTime() + RUN.toNanos();
            try {
                while (System.nanoTime() < end && violations.isEmpty() && crashes.isEmpty()) {
                    Thread.sleep(300 + chaos.nextInt(500));
                    int victim = chaos.nextInt(NODES);
                    c.stop(victim);
                    Thread.sleep(300 + chaos.nextInt(900));
                    c.start(victim);
                    restarts++;
                }
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(30_000);
                }
            }
            System.out.printf(
                    "model test seed %d: %d acknowledged writes, %d checked reads, %d failed or 504, %d restarts%n",
                    seed, acknowledged.get(), checkedReads.get(), unavailable.get(), restarts);
            assertThat(crashes).as("client thread failures (seed %d)", seed).isEmpty();
            assertThat(violations)
                    .as("reads that broke the model (seed %d; rerun with -Dringbase.seed=%d)", seed, seed)
                    .isEmpty();
            assertThat(restarts).as("node restarts (seed %d)", seed).isPositive();
            assertThat(acknowledged.get())
                    .as("acknowledged writes (seed %d)", seed)
                    .isGreaterThan(50);
            assertThat(checkedReads.get()).as("checked reads (seed %d)", seed).isGreaterThan(50);
        }
    }

    /** The reply, or {@code null} if the connection failed (the coordinator was stopping or stopped). */
    private static LocalCluster.Reply call(java.util.function.Supplier<LocalCluster.Reply> request) {
        try {
            return request.get();
        } catch (UncheckedIOException e) {
            return null;
        }
    }

    private static String describe(LocalCluster.Reply r) {
        return r == null ? "connection failed" : r.status() + " " + r.body().strip();
    }
}
