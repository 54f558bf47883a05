package io.ringbase.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes missed by a stopped replica reach it through hints alone (no reads, no repair). */
@IntegrationTest
class HintedHandoffClusterTest {

    @TempDir
    Path tmp;

    @Test
    void missedWritesAndDeletesAreDeliveredWhenTheReplicaComesBack() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            assertThat(c.put(0, "gone", "old").status()).isEqualTo(201);
            c.stop(2);
            for (int i = 0; i < 50; i++) {
                assertThat(c.put(0, "h" + i, "v" + i).status()).isEqualTo(201);
            }
            assertThat(c.delete(1, "gone").status()).isEqualTo(202);
            c.start(2);
            for (int i = 0; i < 50; i++) { // delivered in key order (h0, h1, h10, ...): wait for each
                awaitStored(c, 2, "h" + i, "v" + i, Duration.ofSeconds(10));
            }
            awaitTombstone(c, 2, "gone", Duration.ofSeconds(10));
        }
    }

    @Test
    void hintsSurviveACoordinatorRestart() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            c.stop(2);
            for (int i = 0; i < 20; i++) {
                assertThat(c.put(0, "r" + i, "v" + i).status()).isEqualTo(201);
            }
            c.stop(0); // the hints for node 2 are on node 0's disk only
            c.start(0);
            c.start(2);
            for (int i = 0; i < 20; i++) {
                awaitStored(c, 2, "r" + i, "v" + i, Duration.ofSeconds(10));
            }
        }
    }

    private static String value(LocalCluster c, int node, String key) throws Exception {
        Entry e = c.node(node).engine().get(key.getBytes(UTF_8));
        return e == null || e.isTombstone() ? null : new String(e.value(), UTF_8);
    }

    private static void awaitStored(LocalCluster c, int node, String key, String value, Duration within)
            throws Exception {
        await().atMost(within).pollInterval(Duration.ofMillis(50)).until(() -> value.equals(value(c, node, key)));

        assertThat(value(c, node, key))
                .as("%s on node %d after %s", key, node, within)
                .isEqualTo(value);
    }

    private static void awaitTombstone(LocalCluster c, int node, String key, Duration within) throws Exception {
        Entry e = await().atMost(within)
                .pollInterval(Duration.ofMillis(50))
                .alias("tombstone of " + key + " on node " + node)
                .until(
                        () -> c.node(node).engine().get(key.getBytes(UTF_8)),
                        found -> found != null && found.isTombstone());
        assertThat(e).as("tombstone of %s on node %d", key, node).isNotNull();
        assertThat(e.isTombstone()).isTrue();
    }
}
