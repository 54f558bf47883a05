package io.ringbase.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.membership.NodeState;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /v0/admin/repair} over HTTP between real nodes. */
@IntegrationTest
class AntiEntropyClusterTest {

    @TempDir
    Path tmp;

    @Test
    void aWipedNodeGetsEveryValueAndTombstoneBackByItsOwnRepair() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            for (int i = 0; i < 500; i++) {
                assertThat(c.put(i % 3, "key" + i, "value" + i).status()).isEqualTo(201);
            }
            for (int i = 0; i < 500; i += 10) {
                assertThat(c.delete(0, "key" + i).status()).isEqualTo(202);
            }
            assertThat(c.put(0, "ttl", "t", "&ttl=3600").status()).isEqualTo(201);
            c.stop(2);
            c.wipe(2);
            c.start(2);
            // the wiped node learns from its peers that it lost its data and streams it back by itself
            LocalCluster.await(
                    Duration.ofSeconds(60),
                    "the wiped node to stream its data back",
                    () -> c.node(2).membership().orElseThrow().state() == NodeState.NORMAL);
            String status = c.send(2, "GET", "/v0/admin/repair", null).body();
            assertThat(status).contains("\"outcome\":\"ok\"").contains("\"rangesDone\":32");

            for (int i = 0; i < 500; i++) {
                Entry want = c.node(0).engine().get(("key" + i).getBytes(UTF_8));
                Entry got = c.node(2).engine().get(("key" + i).getBytes(UTF_8));
                assertThat(got).as("key%d on the repaired node", i).isNotNull();
                assertThat(got.version()).isEqualTo(want.version());
                assertThat(got.isTombstone()).isEqualTo(i % 10 == 0);
            }
            Entry ttl = c.node(2).engine().get("ttl".getBytes(UTF_8));
            assertThat(ttl.expiresAtMs())
                    .isEqualTo(c.node(0).engine().get("ttl".getBytes(UTF_8)).expiresAtMs());
            // a second run finds nothing to stream
            assertThat(c.send(2, "POST", "/v0/admin/repair", null).status()).isEqualTo(202);
            LocalCluster.await(
                    Duration.ofSeconds(60),
                    "second repair to finish",
                    () -> c.send(2, "GET", "/v0/admin/repair", null).body().contains("\"state\":\"idle\""));
            assertThat(c.send(2, "GET", "/v0/admin/repair", null).body())
                    .contains("\"keysReceived\":0")
                    .contains("\"keysSent\":0");
        }
    }
}
