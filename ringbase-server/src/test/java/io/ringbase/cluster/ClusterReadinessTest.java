package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /ready} in a 3-node cluster follows the nodes reachable for the default quorum, without any
 * client traffic to notice a dead peer (the prober finds it), while {@code /health} stays 200.
 */
@IntegrationTest
class ClusterReadinessTest {

    static final Duration DEADLINE = Duration.ofSeconds(15);

    @TempDir
    Path tmp;

    @Test
    void readyFollowsTheNodesReachableForTheDefaultQuorum() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            LocalCluster.await(
                    DEADLINE,
                    "node 0 ready",
                    () -> c.send(0, "GET", "/ready", null).status() == 200);
            c.stop(1);
            // one of three down: two of three still make a quorum
            assertThat(c.send(0, "GET", "/ready", null).status()).isEqualTo(200);
            c.stop(2);
            LocalCluster.await(
                    DEADLINE,
                    "node 0 not ready with two peers down",
                    () -> c.send(0, "GET", "/ready", null).status() == 503);
            LocalCluster.Reply ready = c.send(0, "GET", "/ready", null);
            assertThat(ready.body()).isEqualTo("not ready: 1 of 3 nodes reachable, 2 needed for the default quorum\n");
            assertThat(c.send(0, "GET", "/health", null).status()).isEqualTo(200);
            c.start(2);
            LocalCluster.await(
                    DEADLINE,
                    "node 0 ready again",
                    () -> c.send(0, "GET", "/ready", null).status() == 200);
        }
    }
}
