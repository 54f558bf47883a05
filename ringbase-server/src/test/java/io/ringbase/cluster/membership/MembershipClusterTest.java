package io.ringbase.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.rpc.ReplicaClient;
import io.ringbase.logging.LogCapture;
import io.ringbase.node.Node;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership agreement and the replacement of a node that lost its data, on in-process clusters of three
 * nodes over loopback HTTP.
 */
@IntegrationTest
@Timeout(180)
class MembershipClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @RegisterExtension
    final LogCapture clientLog = new LogCapture(ReplicaClient.class);

    private static NodeState state(LocalCluster c, int i) {
        return c.node(i).membership().orElseThrow().state();
    }

    @Test
    void aNodeOfAnotherMembershipIsRefusedWithOneLineNamingBoth() throws Exception {
        try (LocalCluster c = LocalCluster.unsettled(
                tmp, 3, cfg -> cfg.topology().self().index() == 2 ? cfg.withClusterName("other") : cfg)) {
            for (int i = 0; i < 2; i++) {
                int n = i;
                LocalCluster.await(WAIT, "node " + n + " NORMAL", () -> state(c, n) == NodeState.NORMAL);
            }
            // node 2 refuses nodes 0 and 1, and they refuse it: a write that needs all three fails, one that
            // needs two succeeds on nodes 0 and 1 and never reaches node 2's engine
            assertThat(c.put(0, "k", "v", "&ack=3").status()).isEqualTo(504);
            assertThat(c.put(0, "k2", "v", "&ack=2").status()).isEqualTo(201);
            LocalCluster.await(
                    WAIT,
                    "the refusal line",
                    () -> clientLog.errorMessages().stream().anyMatch(m -> m.contains("refuses this node's requests")));
            String line = clientLog.errorMessages().stream()
                    .filter(m -> m.contains("refuses this node's requests"))
                    .findFirst()
                    .orElseThrow();
            assertThat(line).doesNotContain("\n").contains("cluster 'other'").contains("cluster 'ringbase'");
            assertThat(c.stored(2, "k2")).isNull();
            // nobody answers its hellos: it never counts toward a read quorum
            assertThat(state(c, 2)).isEqualTo(NodeState.PENDING);
        }
    }

    @Test
    void aWipedNodeServesNoStaleQuorumReadAndRejoinsAfterStreaming() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3, LocalCluster::withoutHints)) {
            for (int i = 0; i < 3; i++) {
                int n = i;
                LocalCluster.await(WAIT, "node " + n + " NORMAL", () -> state(c, n) == NodeState.NORMAL);
            }
            c.awaitAllUp(WAIT);
            assertThat(c.put(0, "key", "v1", "&ack=3").status()).isEqualTo(201);
            c.stop(2);
            assertThat(c.put(0, "key", "v2", "&ack=2").status()).isEqualTo(201); // on nodes 0 and 1 only
            assertThat(c.stored(1, "key")).isNotNull();

            // node 0, the other holder of v2, dies; node 1 loses its disk and comes back empty; node 2,
            // which missed v2, comes back
            c.stop(0);
            c.stop(1);
            c.wipe(1);
            c.start(1);
            c.start(2);
            LocalCluster.await(WAIT, "node 1 to learn it lost its data", () -> state(c, 1) == NodeState.REPLACING);

            // nodes 1 and 2 would agree on v1: node 1 must count toward no read quorum
            for (int attempt = 0; attempt < 10; attempt++) {
                for (int via : new int[] {1, 2}) {
                    LocalCluster.Reply r = c.get(via, "key");
                    assertThat(r.body())
                            .as("read %d through node %d: %s", attempt, via, r)
                            .doesNotContain("v1");
                    assertThat(r.status()).as("read through node %d", via).isNotEqualTo(200);
                }
            }
            assertThat(state(c, 1)).isEqualTo(NodeState.REPLACING); // node 0 is down: the stream is not whole

            c.start(0);
            LocalCluster.await(WAIT, "node 1 to finish its replacement", () -> state(c, 1) == NodeState.NORMAL);
            assertThat(c.stored(1, "key")).isNotNull();
            for (int via = 0; via < 3; via++) {
                int v = via;
                LocalCluster.await(
                        WAIT,
                        "v2 through node " + v,
                        () -> c.get(v, "key").body().equals("v2"));
            }
        }
    }

    @Test
    void aNewClusterStartsWithEveryNodeAFullReplica() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            for (int i = 0; i < 3; i++) {
                int n = i;
                LocalCluster.await(WAIT, "node " + n + " NORMAL", () -> state(c, n) == NodeState.NORMAL);
                Node node = c.node(n);
                assertThat(node.membership().orElseThrow().identity().nodeId()).isEqualTo(n);
            }
        }
    }
}
