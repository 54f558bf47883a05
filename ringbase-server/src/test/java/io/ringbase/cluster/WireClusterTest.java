package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.wire.PeerProtocol;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A three-node cluster whose replica calls go over the binary protocol (docs/internal-protocol-v2.md):
 * once the connections are up, quorum PUT, GET and DELETE make no HTTP replica call at all; with
 * {@code --internal-protocol http} they all do.
 */
@IntegrationTest
@Timeout(120)
class WireClusterTest {

    @TempDir
    Path tmp;

    /** HTTP replica calls (entry and batch) node {@code i} has served, from its metrics. */
    private static long httpReplicaCalls(LocalCluster c, int i) {
        long sum = 0;
        for (String line : c.send(i, "GET", "/metrics", "").body().split("\n")) {
            if (line.startsWith("ringbase_http_requests_total{endpoint=\"internal_entry\"")
                    || line.startsWith("ringbase_http_requests_total{endpoint=\"internal_batch\"")) {
                sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    private static long httpReplicaCalls(LocalCluster c) {
        return httpReplicaCalls(c, 0) + httpReplicaCalls(c, 1) + httpReplicaCalls(c, 2);
    }

    /** Writes through every node until a round of writes makes no HTTP replica call (v2 is up everywhere). */
    private static void awaitV2(LocalCluster c) {
        int[] n = {0};
        LocalCluster.await(Duration.ofSeconds(30), "replica calls over v2", () -> {
            long before = httpReplicaCalls(c);
            for (int via = 0; via < 3; via++) {
                for (int k = 0; k < 8; k++) {
                    assertThat(c.put(via, "warm" + n[0]++, "w").status()).isEqualTo(201);
                }
            }
            return httpReplicaCalls(c) == before;
        });
    }

    private static void quorumPutGetDelete(LocalCluster c) {
        for (int k = 0; k < 30; k++) {
            int via = k % 3;
            assertThat(c.put(via, "k" + k, "v" + k).status()).isEqualTo(201);
            LocalCluster.Reply r = c.get((via + 1) % 3, "k" + k);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("v" + k);
            assertThat(c.delete((via + 2) % 3, "k" + k).status()).isEqualTo(202);
            assertThat(c.get(via, "k" + k).status()).isEqualTo(404);
        }
    }

    @Test
    void quorumPutGetDeleteGoOverV2() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            awaitV2(c);
            long before = httpReplicaCalls(c);
            quorumPutGetDelete(c);
            assertThat(httpReplicaCalls(c))
                    .as("HTTP replica calls during the run")
                    .isEqualTo(before);
        }
    }

    @Test
    void httpChoiceSendsEveryReplicaCallOverHttp() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3, cfg -> cfg.withPeerProtocol(PeerProtocol.HTTP))) {
            long before = httpReplicaCalls(c);
            quorumPutGetDelete(c);
            assertThat(httpReplicaCalls(c) - before).isGreaterThanOrEqualTo(30 * 4);
        }
    }
}
