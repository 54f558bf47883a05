package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.node.NodeConfig;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quorum reads never go backwards: once a quorum read through one coordinator has
 * returned a value, a later quorum read through another returns it too, even when the write reached a
 * single replica and the replicas the later read asks never got it by hints or background read repair.
 */
@IntegrationTest
class ClusterLinearizableReadTest {

    @TempDir
    Path tmp;

    /** Node 0 waits 30 s for a replica, so a hung replica delays its background read repair past the test. */
    static NodeConfig config(NodeConfig c) {
        NodeConfig noHints = LocalCluster.withoutHints(c);
        return c.topology().self().index() == 0
                ? new NodeConfig(
                        noHints.http(),
                        noHints.storage(),
                        noHints.topology(),
                        30_000,
                        noHints.clusterSecret(),
                        noHints.hints())
                : noHints;
    }

    @Test
    @SuppressWarnings("try") // each blackhole goes away mid-test, before the end of the try (close is idempotent)
    void aQuorumReadThroughAnotherCoordinatorDoesNotReturnAnOlderValueThanAnEarlierQuorumRead() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3, ClusterLinearizableReadTest::config)) {
            c.awaitAllUp(java.time.Duration.ofSeconds(15));
            assertThat(c.put(0, "k", "old", "&ack=3").status()).isEqualTo(201);

            // nodes 1 and 2 hang (accept, never answer): an ack=1 write through node 0 lands on node 0 alone,
            // and its hints are dropped (no hint store room)
            c.stop(1);
            c.stop(2);
            try (Blackhole hung1 = new Blackhole(c.port(1));
                    Blackhole hung2 = new Blackhole(c.port(2))) {
                LocalCluster.Reply put = c.put(0, "k", "new", "&ack=1");
                assertThat(put.status()).as("body: %s", put.body()).isEqualTo(201);
                hung1.close();
                c.start(1);
                assertThat(c.stored(1, "k").value())
                        .as("node 1 missed the write")
                        .isEqualTo("old".getBytes(StandardCharsets.UTF_8));
                // node 0 may have found node 1's port closed for a moment: wait until it believes all up again
                LocalCluster.await(
                        java.time.Duration.ofSeconds(15),
                        "node 0 to see node 1 up",
                        () -> c.node(0).coordinator().upReplicas().size() == 3);

                // a quorum read through node 0: its own copy (new) and node 1's (old) make two answers
                LocalCluster.Reply first = c.get(0, "k", "&ack=2");
                assertThat(first.status()).as("body: %s", first.body()).isEqualTo(200);
                assertThat(first.body()).isEqualTo("new");

                // node 0 goes away, node 2 comes back with its old copy
                c.stop(0);
                hung2.close();
                c.start(2);
            }
            LocalCluster.Reply later = c.get(1, "k", "&ack=2");
            assertThat(later.status()).as("body: %s", later.body()).isEqualTo(200);
            assertThat(later.body())
                    .as("a later quorum read through node 1 (nodes 1 and 2 answer)")
                    .isEqualTo("new");
        }
    }
}
