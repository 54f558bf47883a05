package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@IntegrationTest
class ClusterSmokeTest {

    @TempDir
    Path tmp;

    @Test
    void writeThroughOneNodeReadThroughEvery() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            assertThat(c.put(0, "k", "v").status()).isEqualTo(201);
            for (int i = 0; i < 3; i++) {
                LocalCluster.Reply r = c.get(i, "k");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("v");
            }
            assertThat(c.delete(1, "k").status()).isEqualTo(202);
            assertThat(c.get(2, "k").status()).isEqualTo(404);
            c.stop(2);
            assertThat(c.put(0, "k2", "v2").status()).isEqualTo(201);
            assertThat(c.get(1, "k2").body()).isEqualTo("v2");
            assertThat(c.put(0, "k3", "v3", "&ack=3").status()).isEqualTo(504);
            assertThat(c.get(0, "k3", "&ack=3").body()).contains("nothing was written");
        }
    }
}
