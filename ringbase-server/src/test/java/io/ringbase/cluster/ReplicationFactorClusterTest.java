package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.ring.Ring;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Six nodes with replication factor 3 ({@code serve --replication-factor 3}): each key lives on the
 * first 3 nodes of its rendezvous order, so each node holds about half of the keys; every key reads
 * back through every node; a range scan through any node returns every key once, and refuses when too
 * few nodes are up to see every quorum write; and anti-entropy repair gives a wiped node back exactly
 * its own keys, never spreading keys to nodes outside their replicas.
 */
@IntegrationTest
class ReplicationFactorClusterTest {

    static final int NODES = 6;
    static final int RF = 3;
    static final int KEYS = 3000;
    /** The target: each node holds 50% +- 5% of the keys (RF / NODES, with 5.5 sigma of sampling noise). */
    static final double LOW = 0.45;

    static final double HIGH = 0.55;
    static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @Test
    @Timeout(300)
    void sixNodesWithReplicationFactor3HoldHalfTheKeysEachAndRepairKeepsItSo() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, NODES, LocalCluster.withReplicationFactor(RF))) {
            c.awaitAllUp(DEADLINE);
            Ring ring = c.node(0).coordinator().placement().current();
            List<String> expectedScan = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                assertThat(c.put(i % NODES, key(i), value(i)).status())
                        .as(key(i))
                        .isEqualTo(201);
                expectedScan.add(key(i) + "\n" + value(i));
            }
            // a write is answered at ack = 2; wait for every third copy to land
            LocalCluster.await(DEADLINE, "every key on 3 nodes", () -> totalStored(c) == (long) RF * KEYS);
            assertShares(c, "after the writes");
            assertEveryKeyOnExactlyItsReplicas(c, ring);

            // every key through every coordinator
            ExecutorService readers = Executors.newFixedThreadPool(NODES);
            try {
                List<Future<List<String>>> misses = new ArrayList<>();
                for (int via = 0; via < NODES; via++) {
                    int v = via;
                    misses.add(readers.submit(() -> {
                        List<String> out = new ArrayList<>();
                        for (int i = 0; i < KEYS; i++) {
                            LocalCluster.Reply r = c.get(v, key(i));
                            if (r.status() != 200 || !r.body().equals(value(i))) {
                                out.add(key(i) + " via node " + v + ": " + r.status() + " " + r.body());
                            }
                        }
                        return out;
                    }));
                }
                for (Future<List<String>> f : misses) {
                    assertThat(f.get(120, TimeUnit.SECONDS)).isEmpty();
                }
            } finally {
                readers.shutdownNow();
            }

            LocalCluster.Reply tooMany = c.get(0, key(0), "&from=4");
            assertThat(tooMany.status()).isEqualTo(400);
            assertThat(tooMany.body()).isEqualTo("from 4 exceeds the replication factor 3\n");
            assertThat(c.put(0, key(0), "x", "&from=4&ack=1").status()).isEqualTo(400);

            for (int via = 0; via < NODES; via++) {
                assertThat(scan(c, via)).as("scan through node %d", via).containsExactlyElementsOf(expectedScan);
            }
            // one node down: every key keeps 2 of its 3 replicas among the other five
            c.stop(5);
            LocalCluster.await(DEADLINE, "node 0 to see node 5 down", () -> upSeenBy(c, 0) == NODES - 1);
            assertThat(scan(c, 0)).as("scan with node 5 down").containsExactlyElementsOf(expectedScan);
            // two down: some keys have only one replica up, which need not hold a quorum write
            c.stop(4);
            LocalCluster.await(DEADLINE, "node 0 to see node 4 down", () -> upSeenBy(c, 0) == NODES - 2);
            LocalCluster.Reply refused = c.send(0, "GET", "/v0/entities?start=rf-&end=rf.", null);
            assertThat(refused.status()).isEqualTo(504);
            assertThat(refused.body()).startsWith("not enough replicas reachable: 4 of 6 up, 5 needed");
            c.start(4);
            c.start(5);

            // keys written with from = 2 live on the first 2 of their 3 replicas
            List<String> two = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String k = String.format(Locale.ROOT, "two-%03d", i);
                assertThat(c.put(i % NODES, k, "t", "&from=2").status()).isEqualTo(201);
                two.add(k);
            }

            // a wiped node gets back by repair exactly the keys it replicates, not every key
            int wiped = 2;
            NodeId wipedId = c.node(0).coordinator().placement().node(wiped);
            int itsKeys = 0;
            for (int i = 0; i < KEYS; i++) {
                itsKeys += ring.isReplica(Ring.keyHash(bytes(key(i))), RF, wipedId) ? 1 : 0;
            }
            c.stop(wiped);
            c.wipe(wiped);
            c.start(wiped);
            c.awaitAllUp(DEADLINE);
            repair(c, wiped);
            int back = 0;
            for (int i = 0; i < KEYS; i++) {
                back += c.stored(wiped, key(i)) != null ? 1 : 0;
            }
            assertThat(back).as("keys node %d got back by repair", wiped).isEqualTo(itsKeys);

            for (int i = 0; i < NODES; i++) {
                if (i != wiped) {
                    repair(c, i);
                }
            }
            assertShares(c, "after repair on every node");
            assertEveryKeyOnExactlyItsReplicas(c, ring);
            for (String k : two) {
                // repair carries a from=2 key to its third replica (entries do not record their from), but
                // never beyond its replicas
                assertThat(new HashSet<>(c.holders(k)))
                        .as(k)
                        .containsAll(indexes(ring.replicas(bytes(k), 2)))
                        .isSubsetOf(indexes(ring.replicas(bytes(k), RF)));
            }
        }
    }

    private static void assertShares(LocalCluster c, String when) {
        StringBuilder line = new StringBuilder(
                "keys per node (" + NODES + " nodes, RF " + RF + ", " + KEYS + " keys, " + when + "):");
        List<Double> shares = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            double share = (double) c.storedKeys(i, "rf-") / KEYS;
            shares.add(share);
            line.append(String.format(Locale.ROOT, " node %d %.1f%%", i, 100 * share));
        }
        System.out.println(line);
        for (int i = 0; i < NODES; i++) {
            assertThat(shares.get(i)).as("share of node %d %s", i, when).isBetween(LOW, HIGH);
        }
    }

    private static void assertEveryKeyOnExactlyItsReplicas(LocalCluster c, Ring ring) {
        for (int i = 0; i < KEYS; i++) {
            assertThat(c.holders(key(i)))
                    .as("nodes holding %s", key(i))
                    .containsExactlyInAnyOrderElementsOf(indexes(ring.replicas(bytes(key(i)), RF)));
        }
    }

    private static long totalStored(LocalCluster c) {
        long n = 0;
        for (int i = 0; i < NODES; i++) {
            n += c.storedKeys(i, "rf-");
        }
        return n;
    }

    private static int upSeenBy(LocalCluster c, int i) {
        return c.node(i).coordinator().upReplicas().size();
    }

    /** Starts repair on node {@code i} and waits for it to end well. */
    private static void repair(LocalCluster c, int i) {
        assertThat(c.send(i, "POST", "/v0/admin/repair", null).status()).isEqualTo(202);
        LocalCluster.await(
                DEADLINE,
                "repair on node " + i,
                () -> c.send(i, "GET", "/v0/admin/repair", null).body().contains("\"state\":\"idle\""));
        assertThat(c.send(i, "GET", "/v0/admin/repair", null).body())
                .contains("\"outcome\":\"ok\"")
                .contains("\"rangesDone\":" + (NODES - 1) * 16);
    }

    /** The records of a range scan of the {@code rf-} keys through node {@code via}: key, newline, value. */
    private static List<String> scan(LocalCluster c, int via) {
        LocalCluster.Reply r = c.send(via, "GET", "/v0/entities?start=rf-&end=rf.", null);
        assertThat(r.status()).as("scan through node %d: %s", via, r.body()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        for (String record : r.body().split(";")) {
            if (!record.isEmpty()) {
                out.add(record + ";");
            }
        }
        return out;
    }

    private static List<Integer> indexes(List<NodeId> nodes) {
        return nodes.stream().map(NodeId::index).toList();
    }

    private static String key(int i) {
        return String.format(Locale.ROOT, "rf-%05d", i);
    }

    /** Every value ends with ';', which splits a range body back into its records. */
    private static String value(int i) {
        return "v" + i + ";";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
