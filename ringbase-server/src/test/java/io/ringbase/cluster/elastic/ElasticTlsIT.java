package io.ringbase.cluster.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.TestCertificates;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An elastic cluster whose URLs are {@code https://} ({@code --metadata-port-offset}, then {@code --join}), on
 * certificates of a CA the test makes: the founding nodes form the metadata group over mutual TLS (Ratis over
 * gRPC), a node joins through one of them, and a write is readable through every node.
 */
@IntegrationTest
@Timeout(180)
class ElasticTlsIT {

    @TempDir
    Path tmp;

    @Test
    void foundersFormTheGroupANodeJoinsAndAWriteIsReadableOverTls() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 2, new TestCertificates("elastic-ca"))) {
            assertThat(c.url(0)).startsWith("https://");
            assertThat(c.elastic(0).configuredVoters()).hasSize(3);
            int joined = c.join();
            c.awaitState(joined, MemberState.NORMAL);
            c.awaitSameEpoch();
            LocalCluster.Reply put = c.put(joined, "k", "over-tls");
            assertThat(put.status()).as(put.body()).isEqualTo(201);
            for (int i = 0; i < c.size(); i++) {
                LocalCluster.Reply get = c.get(i, "k");
                assertThat(get.status()).as("node %d: %s", i, get.body()).isEqualTo(200);
                assertThat(get.body()).isEqualTo("over-tls");
            }
        }
    }
}
