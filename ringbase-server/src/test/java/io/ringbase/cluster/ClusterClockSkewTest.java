package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose clock runs ahead of the others by more than the maximum offset (the test-only clock
 * skew): its versions are refused, so it cannot drag the cluster's clocks forward.
 */
@IntegrationTest
class ClusterClockSkewTest {

    @TempDir
    Path tmp;

    @Test
    void writesVersionedByANodeTooFarAheadAreRefusedAndTheOthersClocksStayPut() throws Exception {
        try (LocalCluster c = new LocalCluster(
                tmp,
                3,
                config -> config.topology().self().index() == 2
                        ? config.withClock(config.clock().withTestOffsetMs(60_000))
                        : config)) {
            c.awaitAllUp(java.time.Duration.ofSeconds(15));
            LocalCluster.Reply skewed = c.put(2, "k", "from the future", "&ack=2");
            assertThat(skewed.status()).as("body: %s", skewed.body()).isEqualTo(504);
            assertThat(c.stored(0, "k")).as("node 0 refused the version").isNull();
            assertThat(c.stored(1, "k")).isNull();

            assertThat(c.put(0, "k", "now", "&ack=2").status()).isEqualTo(201);
            long v = c.stored(0, "k").version();
            assertThat(HybridLogicalClock.physicalMs(v))
                    .as("node 0's clock was not dragged 60 s ahead")
                    .isLessThan(System.currentTimeMillis() + 1_000);

            // node 2 still holds its future version: a read through a healthy node does not use its answer
            LocalCluster.Reply quorum = c.get(0, "k", "&ack=2");
            assertThat(quorum.status()).isEqualTo(200);
            assertThat(quorum.body()).isEqualTo("now");
            LocalCluster.Reply all = c.get(0, "k", "&ack=3");
            assertThat(all.status())
                    .as("node 2's answer counts as failed: %s", all.body())
                    .isEqualTo(504);
        }
    }
}
