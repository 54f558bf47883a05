package io.ringbase.cluster.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.membership.IdentityMismatchException;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.streaming.StreamCursor;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster whose membership comes from the metadata log grows and shrinks while it holds data: nodes join
 * (streaming their keys before they answer reads) and are decommissioned (streaming theirs away before they
 * leave), in-process over loopback HTTP.
 */
@IntegrationTest
@Timeout(300)
class ElasticClusterTest {

    private static final int KEYS = 1500;

    @TempDir
    Path tmp;

    private static void assertEveryKeyReadable(ElasticCluster c, String prefix, int via) {
        for (int k = 0; k < KEYS; k++) {
            LocalCluster.Reply r = c.get(via, prefix + k);
            assertThat(r.status())
                    .as("get %s%d through node %d: %s", prefix, k, via, r.body())
                    .isEqualTo(200);
            assertThat(r.body()).isEqualTo("v" + k);
        }
    }

    @Test
    void growingFromThreeToSixNodesWithRf3HalvesEachNodesShare() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            c.writeToAllReplicas("g", KEYS);
            for (int i = 0; i < 3; i++) {
                assertThat(c.storedEntries(i)).isEqualTo(KEYS);
            }
            for (int j = 0; j < 3; j++) {
                int joined = c.join();
                c.awaitState(joined, MemberState.NORMAL);
                c.awaitSameEpoch();
                assertEveryKeyReadable(c, "g", joined);
            }
            for (int i = 0; i < c.size(); i++) {
                LocalCluster.Reply r = c.send(i, "POST", "/v0/admin/cleanup", "");
                assertThat(r.status()).as("cleanup of node %d: %s", i, r.body()).isEqualTo(200);
            }
            for (int i = 0; i < c.size(); i++) {
                double share = (double) c.storedEntries(i) / KEYS;
                assertThat(share).as("share of node %d", i).isBetween(0.40, 0.60);
            }
            for (int i = 0; i < c.size(); i++) {
                assertEveryKeyReadable(c, "g", i);
            }
        }
    }

    @Test
    void aWipedNodeIsRefusedThenReplacedAndServesOnlyAfterStreaming() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            int joined = c.join();
            c.awaitState(joined, MemberState.NORMAL);
            c.awaitSameEpoch();
            Path cursors = tmp.resolve("node-" + joined).resolve(StreamCursor.DIRECTORY);
            LocalCluster.await(java.time.Duration.ofSeconds(10), "the finished join's stream cursors deleted", () -> {
                try (var files = java.nio.file.Files.list(cursors)) {
                    return files.findAny().isEmpty();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            int id = c.elastic(joined).selfId();
            c.writeToAllReplicas("r", KEYS);
            long held = c.storedEntries(joined);
            assertThat(held).isPositive();
            c.stop(joined);
            c.wipe(joined);
            assertThatThrownBy(() -> c.start(joined))
                    .isInstanceOf(IdentityMismatchException.class)
                    .hasMessageContaining("--replace " + id);
            c.startReplacing(joined, id);
            c.awaitState(joined, MemberState.NORMAL);
            c.awaitSameEpoch();
            assertThat(c.elastic(0).metadata().member(id).orElseThrow().state()).isEqualTo(MemberState.LEFT);
            assertThat(c.storedEntries(joined))
                    .as("keys streamed to the replacement")
                    .isEqualTo(held);
            for (int i = 0; i < c.size(); i++) {
                assertEveryKeyReadable(c, "r", i);
            }
        }
    }

    @Test
    void aLiveNodeCannotBeReplaced() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            int joined = c.join();
            c.awaitState(joined, MemberState.NORMAL);
            int id = c.elastic(joined).selfId();
            assertThatThrownBy(() -> c.joinReplacing(id))
                    .hasMessageContaining("node " + id)
                    .hasMessageContaining("still answers");
            assertThat(c.elastic(0).metadata().member(id).orElseThrow().state()).isEqualTo(MemberState.NORMAL);
        }
    }

    @Test
    void aRemovedNodesKeysAreStreamedFromTheirOtherReplicas() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            int joined = c.join();
            c.awaitState(joined, MemberState.NORMAL);
            c.awaitSameEpoch();
            int id = c.elastic(joined).selfId();
            c.writeToAllReplicas("x", KEYS);
            c.stop(joined);
            LocalCluster.Reply r = c.send(0, "POST", "/v0/admin/remove?node=" + id, "");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            LocalCluster.await(java.time.Duration.ofSeconds(60), "every founding node to hold every key again", () -> {
                try {
                    return c.storedEntries(0) == KEYS && c.storedEntries(1) == KEYS && c.storedEntries(2) == KEYS;
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            for (int i = 0; i < 3; i++) {
                assertEveryKeyReadable(c, "x", i);
            }
        }
    }

    @Test
    void aDecommissionedNodeHandsItsKeysOverAndLeaves() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 2)) {
            int joined = c.join();
            c.awaitState(joined, MemberState.NORMAL);
            c.awaitSameEpoch();
            c.writeToAllReplicas("d", KEYS);
            assertThat(c.storedEntries(joined)).isPositive();
            LocalCluster.Reply r = c.send(joined, "POST", "/v0/admin/decommission", "");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            c.awaitState(joined, MemberState.LEFT);
            c.awaitSameEpoch();
            for (int i = 0; i < 3; i++) {
                assertEveryKeyReadable(c, "d", i);
            }
            long held = 0;
            for (int i = 0; i < 3; i++) {
                held += c.storedEntries(i);
            }
            assertThat(held).as("copies on the three remaining nodes").isEqualTo(2L * KEYS);
        }
    }
}
