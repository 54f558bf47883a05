package io.ringbase.cluster.elastic;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.membership.IdentityMismatchException;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The voters of the metadata (Raft) group when a founding node loses its disk: it never comes back as the
 * same voter with an empty log, and its replacement takes its place among the voters.
 */
@IntegrationTest
@Timeout(300)
class MetadataVotersTest {

    @TempDir
    Path tmp;

    @Test
    void aWipedFoundingNodeIsRefusedAtStartAndToldToReplaceItself() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            c.awaitSettled();
            c.stop(0);
            c.wipe(0);
            assertThatThrownBy(() -> c.start(0))
                    .isInstanceOf(IdentityMismatchException.class)
                    .hasMessageContaining("--replace 1")
                    .hasMessageContaining("lost its disk")
                    .hasMessageNotContaining("\n");
        }
    }
}
