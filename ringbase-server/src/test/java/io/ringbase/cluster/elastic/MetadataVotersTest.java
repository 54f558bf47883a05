package io.ringbase.cluster.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.membership.IdentityMismatchException;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
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

    private static final int KEYS = 300;

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

    /**
     * Founding node 1 is wiped and replaced (at its own URL, so at its metadata address too); with the
     * replacement and founding node 3 as the only voters up, a removal through the replacement still commits,
     * also after both restarted. Without the voter change the group would be founding nodes 1 (gone), 2
     * (stopped) and 3: no quorum, and the removal would time out.
     */
    @Test
    void aReplacedFoundingNodeIsAVoterSoChangesCommitWithAnotherFounderDown() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 2)) {
            c.writeToAllReplicas("v", KEYS);
            c.awaitSettled();
            c.stop(0);
            c.wipe(0);
            assertThatThrownBy(() -> c.start(0)).isInstanceOf(IdentityMismatchException.class);
            c.startReplacing(0, 1);
            c.awaitState(0, MemberState.NORMAL);
            c.awaitSameEpoch();
            int id = c.elastic(0).selfId();
            assertThat(id).as("a replacement gets a new id").isEqualTo(4);
            assertThat(c.elastic(1).metadata().voters()).containsExactly(2, 3, id);
            assertThat(c.elastic(1).metadata().member(1).orElseThrow().state()).isEqualTo(MemberState.LEFT);
            for (int i = 0; i < 3; i++) {
                assertThat(c.elastic(i).configuredVoters().keySet())
                        .as("the Raft configuration on node %d", i)
                        .containsExactly(2, 3, id);
            }

            // the voters come from the group's storage and the metadata, not from --cluster, after restarts
            c.stop(0);
            c.start(0);
            c.awaitState(0, MemberState.NORMAL);
            c.stop(2);
            c.start(2);
            c.awaitState(2, MemberState.NORMAL);
            c.awaitSameEpoch();
            for (int i : new int[] {0, 2}) {
                assertThat(c.elastic(i).configuredVoters().keySet())
                        .as("the Raft configuration on node %d after its restart", i)
                        .containsExactly(2, 3, id);
            }

            c.stop(1); // founding node 2: of the voters 2, 3 and 4, only 3 and 4 run now
            LocalCluster.Reply removed = c.send(0, "POST", "/v0/admin/remove?node=2", "");
            assertThat(removed.status()).as(removed.body()).isEqualTo(200);
            LocalCluster.await(
                    Duration.ofSeconds(30),
                    "the removal at the replacement",
                    () -> c.elastic(0).metadata().member(2).orElseThrow().state() == MemberState.LEFT);
            for (int via : new int[] {0, 2}) {
                for (int k = 0; k < KEYS; k++) {
                    LocalCluster.Reply r = c.get(via, "v" + k);
                    assertThat(r.status())
                            .as("get v%d through node %d: %s", k, via, r.body())
                            .isEqualTo(200);
                    assertThat(r.body()).isEqualTo("v" + k);
                }
            }
        }
    }

    @Test
    void aReplacedFoundingNodeThatComesBackWithItsOldDiskIsRefused() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            c.stop(0);
            c.joinReplacing(1); // returns once it is a voter in node 1's place: REPLACING, streaming
            c.awaitSameEpoch();
            assertThatThrownBy(() -> c.start(0))
                    .isInstanceOf(IdentityMismatchException.class)
                    .hasMessageContaining("founding node 1")
                    .hasMessageContaining("was replaced by node 4");
        }
    }

    /**
     * A replacement stopped after the group took it as a voter but before FINISH_REPLACE (it waits for the dead
     * node's epoch for 30 s before it streams): started again with the same flags, its metadata server recovers
     * as a voter, the configuration change asked again changes nothing, and it finishes.
     */
    @Test
    @Timeout(180)
    void aReplacementStoppedBetweenTheVoterChangeAndFinishResumes() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 2)) {
            c.stop(0);
            int replacement = c.joinReplacing(1);
            assertThat(c.elastic(replacement).selfState()).isEqualTo(MemberState.REPLACING);
            c.stop(replacement);
            c.start(replacement);
            c.awaitState(replacement, MemberState.NORMAL);
            assertThat(c.elastic(replacement).metadata().voters()).containsExactly(2, 3, 4);
            c.stop(1); // of the voters 2, 3 and 4, only 3 and 4 run now
            LocalCluster.Reply removed = c.send(replacement, "POST", "/v0/admin/remove?node=2", "");
            assertThat(removed.status()).as(removed.body()).isEqualTo(200);
        }
    }

    @Test
    void aNodeOutsideTheGroupForwardsAJoinToTheVoters() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp, 3, 3)) {
            int follower = c.join();
            c.awaitState(follower, MemberState.NORMAL);
            assertThat(c.elastic(follower).configuredVoters())
                    .as("no metadata server")
                    .isEmpty();
            int second = c.joinThrough(follower);
            c.awaitState(second, MemberState.NORMAL);
            assertThat(c.elastic(second).metadata().voters()).containsExactly(1, 2, 3);
        }
    }
}
