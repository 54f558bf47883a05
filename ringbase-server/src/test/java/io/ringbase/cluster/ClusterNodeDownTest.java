package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.replication.SpeculativeRetry;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster with nodes stopped, hung and restarted: the two kinds of 504, quorum reads seeing
 * quorum writes with any one node down, missed writes after a restart, and read repair.
 */
@IntegrationTest
class ClusterNodeDownTest {

    static final Duration DEADLINE = Duration.ofSeconds(15);

    @TempDir
    Path tmp;

    @Test
    void withTwoOfThreeDownARequestIsNotSentAndSaysNothingWasWritten() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            c.stop(1);
            c.stop(2);
            // the first request finds the two down (connection refused) and marks them so
            assertThat(c.put(0, "first", "v").status()).isEqualTo(504);
            LocalCluster.Reply put = c.put(0, "unavailable", "v");
            assertThat(put.status()).isEqualTo(504);
            assertThat(put.body()).contains("not enough replicas reachable").contains("nothing was written");
            assertThat(c.holders("unavailable"))
                    .as("the coordinator's own engine must not have it")
                    .isEmpty();
            LocalCluster.Reply get = c.get(0, "unavailable");
            assertThat(get.status()).isEqualTo(504);
            assertThat(get.body()).contains("not enough replicas reachable");
            LocalCluster.Reply delete = c.delete(0, "first");
            assertThat(delete.status()).isEqualTo(504);
            assertThat(delete.body()).contains("nothing was written");
            // ack=1 needs only the coordinator
            assertThat(c.put(0, "one-is-enough", "v", "&ack=1").status()).isEqualTo(201);
        }
    }

    @Test
    void aNodeThatIsBackServesTheVeryNextRequestThroughAPeerThatSawItDown() throws Exception {
        // regression: the coordinator refused ack=2&from=2 with "not enough replicas reachable" on the
        // failure detector's belief, for up to a prober round after the node was back
        try (LocalCluster c = new LocalCluster(tmp, 2)) {
            assertThat(c.put(0, "k", "old", "&ack=2&from=2").status()).isEqualTo(201);
            for (int round = 0; round < 3; round++) {
                c.stop(1);
                assertThat(c.put(0, "k", "while-down", "&ack=2&from=2").status())
                        .as("node 1 seen down")
                        .isEqualTo(504);
                c.start(1);
                LocalCluster.Reply put = c.put(0, "k", "v" + round, "&ack=2&from=2");
                assertThat(put.status())
                        .as("overwrite right after the restart: %s", put.body())
                        .isEqualTo(201);
                LocalCluster.Reply get = c.get(0, "k", "&ack=2&from=2");
                assertThat(get.status()).as("read: %s", get.body()).isEqualTo(200);
                assertThat(get.body()).isEqualTo("v" + round);
                assertThat(c.delete(0, "k", "&ack=2&from=2").status()).isEqualTo(202);
                assertThat(c.put(0, "k", "v" + round, "&ack=2&from=2").status())
                        .as("recreate")
                        .isEqualTo(201);
            }
        }
    }

    @Test
    void aReplicaThatAcceptsButNeverAnswersGivesTheTimeout504AndDoesNotHoldUpAQuorum() throws Exception {
        // node 0 waits 1 s for a replica, node 1 waits 60 s: a default quorum through node 1 must not wait for it
        try (LocalCluster c = new LocalCluster(
                tmp,
                3,
                config -> config.topology().self().index() == 1
                        ? new NodeConfig(
                                config.http(),
                                config.storage(),
                                config.topology(),
                                60_000,
                                config.clusterSecret(),
                                config.hints())
                        : config)) {
            c.stop(2);
            try (Blackhole hung = new Blackhole(c.port(2))) {
                long started = System.nanoTime();
                LocalCluster.Reply put = c.put(0, "hung", "v", "&ack=3");
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                assertThat(put.status()).as("body: %s", put.body()).isEqualTo(504);
                assertThat(put.body()).startsWith("timeout:").contains("a write may have been applied");
                assertThat(tookMs).as("answer time with a 1 s replica timeout").isBetween(900L, 10_000L);
                assertThat(hung.connections()).isPositive();

                LocalCluster.Reply get = c.get(0, "hung", "&ack=3");
                assertThat(get.status()).isEqualTo(504);
                assertThat(get.body()).startsWith("timeout:");

                started = System.nanoTime();
                assertThat(c.put(1, "quorum-despite-hung", "v").status()).isEqualTo(201);
                LocalCluster.Reply r = c.get(1, "quorum-despite-hung");
                tookMs = (System.nanoTime() - started) / 1_000_000;
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("v");
                assertThat(tookMs)
                        .as("a quorum must not wait for the hung replica (60 s timeout)")
                        .isLessThan(20_000L);
            }
        }
    }

    @Test
    void quorumReadsSeeQuorumWritesWithAnySingleNodeDown() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            for (int down = 0; down < 3; down++) {
                c.stop(down);
                for (int via = 0; via < 3; via++) {
                    if (via == down) {
                        continue;
                    }
                    String key = "down" + down + "-via" + via;
                    assertThat(c.put(via, key, "v1").status()).as("put %s", key).isEqualTo(201);
                    assertThat(c.put(via, key, "v2").status())
                            .as("overwrite %s", key)
                            .isEqualTo(201);
                    assertThat(c.put(via, key + "-deleted", "x").status()).isEqualTo(201);
                    assertThat(c.delete(via, key + "-deleted").status()).isEqualTo(202);
                    for (int reader = 0; reader < 3; reader++) {
                        if (reader == down) {
                            continue;
                        }
                        LocalCluster.Reply r = c.get(reader, key);
                        assertThat(r.status()).as("%s via %d", key, reader).isEqualTo(200);
                        assertThat(r.body()).isEqualTo("v2");
                        assertThat(c.get(reader, key + "-deleted").status()).isEqualTo(404);
                    }
                }
                c.start(down);
                c.awaitAllUp(DEADLINE);
            }
            // and every key through every node, the ones each node missed included
            for (int down = 0; down < 3; down++) {
                for (int via = 0; via < 3; via++) {
                    if (via != down) {
                        for (int reader = 0; reader < 3; reader++) {
                            String key = "down" + down + "-via" + via;
                            assertThat(c.get(reader, key).body())
                                    .as("%s via %d", key, reader)
                                    .isEqualTo("v2");
                            assertThat(c.get(reader, key + "-deleted").status()).isEqualTo(404);
                        }
                    }
                }
            }
        }
    }

    @Test
    void writesDeletesOverwritesAndRecreatesMissedByAStoppedNodeAreSeenAfterItReturns() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            for (String k : List.of("overwritten", "deleted", "recreated", "deleted-while-down-then-recreated")) {
                assertThat(c.put(0, k, "old").status()).isEqualTo(201);
            }
            assertThat(c.delete(0, "recreated").status()).isEqualTo(202);
            LocalCluster.await(
                    DEADLINE,
                    "every copy in place",
                    () -> c.holders("recreated").size() == 3
                            && c.holders("deleted-while-down-then-recreated").size() == 3);

            c.stop(2);
            assertThat(c.put(1, "overwritten", "new").status()).isEqualTo(201);
            assertThat(c.delete(0, "deleted").status()).isEqualTo(202);
            assertThat(c.put(1, "recreated", "again").status()).isEqualTo(201);
            assertThat(c.delete(0, "deleted-while-down-then-recreated").status())
                    .isEqualTo(202);
            assertThat(c.put(1, "deleted-while-down-then-recreated", "back").status())
                    .isEqualTo(201);
            assertThat(c.put(0, "created", "fresh").status()).isEqualTo(201);
            assertExpected(c, 0, 1);

            c.start(2);
            assertExpected(c, 2); // node 2 coordinating: its own answer, stale until hints arrive, must lose
            c.awaitAllUp(DEADLINE);
            assertExpected(c, 0, 1, 2);
        }
    }

    private static void assertExpected(LocalCluster c, int... vias) {
        for (int via : vias) {
            assertThat(c.get(via, "overwritten").body()).as("via %d", via).isEqualTo("new");
            assertThat(c.get(via, "deleted").status()).as("via %d", via).isEqualTo(404);
            assertThat(c.get(via, "recreated").body()).as("via %d", via).isEqualTo("again");
            assertThat(c.get(via, "deleted-while-down-then-recreated").body())
                    .as("via %d", via)
                    .isEqualTo("back");
            assertThat(c.get(via, "created").body()).as("via %d", via).isEqualTo("fresh");
        }
    }

    @Test
    void aReadThatAsksEveryReplicaWritesTheNewestVersionBackToAStaleReplica() throws Exception {
        // without hinted handoff, so that node 2 stays stale until a read repairs it; every read asks
        // all three replicas (--speculative-retry always), so also reads below a quorum repair node 2
        try (LocalCluster c = new LocalCluster(
                tmp, 3, cfg -> LocalCluster.withoutHints(cfg).withSpeculativeRetry(SpeculativeRetry.ALWAYS))) {
            assertThat(c.put(0, "repaired", "old").status()).isEqualTo(201);
            assertThat(c.put(0, "repaired-delete", "old").status()).isEqualTo(201);
            assertThat(c.put(0, "repaired-ttl", "old").status()).isEqualTo(201);
            LocalCluster.await(
                    DEADLINE,
                    "3 copies",
                    () -> c.holders("repaired").size() == 3
                            && c.holders("repaired-delete").size() == 3
                            && c.holders("repaired-ttl").size() == 3);
            c.stop(2);
            assertThat(c.put(0, "repaired", "new").status()).isEqualTo(201);
            assertThat(c.delete(1, "repaired-delete").status()).isEqualTo(202);
            assertThat(c.put(1, "repaired-ttl", "new", "&ttl=3600").status()).isEqualTo(201);
            assertThat(c.put(0, "repaired-missing", "new").status()).isEqualTo(201);
            c.start(2);
            c.awaitAllUp(DEADLINE);
            assertThat(new String(c.stored(2, "repaired").value(), StandardCharsets.UTF_8))
                    .as("precondition: node 2 missed the overwrite")
                    .isEqualTo("old");
            assertThat(c.stored(2, "repaired-missing"))
                    .as("precondition: node 2 missed the create")
                    .isNull();

            assertThat(c.get(0, "repaired", "&ack=3&from=3").body()).isEqualTo("new");
            assertThat(c.get(1, "repaired-delete", "&ack=1&from=3").status()).isIn(200, 404);
            assertThat(c.get(2, "repaired-ttl", "&ack=3").body()).isEqualTo("new");
            assertThat(c.get(2, "repaired-missing", "&ack=1").status()).isIn(200, 404);
            for (String key : List.of("repaired", "repaired-delete", "repaired-ttl", "repaired-missing")) {
                Entry newest = c.stored(0, key);
                LocalCluster.await(
                        DEADLINE, "read repair of " + key + " on node 2", () -> newest.equals(c.stored(2, key)));
            }
            assertThat(c.stored(2, "repaired-delete").isTombstone()).isTrue();
            assertThat(c.stored(2, "repaired-ttl").expiresAtMs())
                    .isEqualTo(c.stored(1, "repaired-ttl").expiresAtMs())
                    .isPositive();
            long repairs = 0;
            for (int i = 0; i < 3; i++) {
                repairs += c.node(i).coordinator().readRepairs();
            }
            assertThat(repairs).isGreaterThanOrEqualTo(4);
        }
    }

    @Test
    void aQuorumReadThroughTheStaleReplicaRepairsItAndAReadOfOneAsksOnlyItsCoordinator() throws Exception {
        // the default speculative retry (99p): a read asks ack replicas, the coordinator first
        try (LocalCluster c = new LocalCluster(tmp, 3, LocalCluster::withoutHints)) {
            assertThat(c.put(0, "stale", "old").status()).isEqualTo(201);
            LocalCluster.await(DEADLINE, "3 copies", () -> c.holders("stale").size() == 3);
            c.stop(2);
            assertThat(c.put(0, "stale", "new").status()).isEqualTo(201);
            c.start(2);
            c.awaitAllUp(DEADLINE);
            assertThat(new String(c.stored(2, "stale").value(), StandardCharsets.UTF_8))
                    .as("precondition: node 2 missed the overwrite")
                    .isEqualTo("old");

            // a read of one through node 2 asks node 2 alone: its own stale copy, nothing repaired
            assertThat(c.get(2, "stale", "&ack=1").body()).isEqualTo("old");
            assertThat(new String(c.stored(2, "stale").value(), StandardCharsets.UTF_8))
                    .isEqualTo("old");
            // a quorum read through node 2 asks node 2 and one other: it writes the newest back to every
            // replica and answers once two hold it (node 2's own write-back may still be on its way)
            assertThat(c.get(2, "stale", "&ack=2").body()).isEqualTo("new");
            Entry newest = c.stored(0, "stale");
            LocalCluster.await(DEADLINE, "node 2 repaired", () -> newest.equals(c.stored(2, "stale")));
            assertThat(c.get(2, "stale", "&ack=1").body()).isEqualTo("new");
        }
    }

    @Test
    void aNodeOutsideAKeysReplicasIsNotNeededForIt() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            Ring ring = c.node(0).coordinator().placement().current();
            String key = null;
            for (int k = 0; key == null; k++) {
                String candidate = "placed-" + k;
                if (ring.replicas(candidate.getBytes(StandardCharsets.UTF_8), 1)
                                .getFirst()
                                .index()
                        == 0) {
                    key = candidate;
                }
            }
            c.stop(1);
            c.stop(2);
            // from=1: only the first replica (node 0) is asked, the dead ones do not matter
            assertThat(c.put(0, key, "v", "&from=1").status()).isEqualTo(201);
            assertThat(c.get(0, key, "&from=1").body()).isEqualTo("v");
        }
    }
}
