package io.ringbase.cluster.paxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Who takes part in a key's Paxos rounds at each step of a membership change, and how many must answer. */
@Timeout(10)
class ParticipantsTest {

    static final NodeId N0 = new NodeId(0, "n0", 7000);
    static final NodeId N1 = new NodeId(1, "n1", 7000);
    static final NodeId N2 = new NodeId(2, "n2", 7000);
    static final NodeId N3 = new NodeId(3, "n3", 7000);
    static final Ring THREE = new Ring(List.of(N0, N1, N2));
    static final Ring FOUR = new Ring(List.of(N0, N1, N2, N3));

    /** A key whose replicas in {@code next} (rf 3) include {@code node} iff {@code included}. */
    static byte[] key(Ring next, NodeId node, boolean included) {
        for (int i = 0; ; i++) {
            byte[] k = ("key" + i).getBytes(StandardCharsets.UTF_8);
            if (next.replicasOfHash(Ring.keyHash(k), 3).contains(node) == included) {
                return k;
            }
        }
    }

    @Test
    void withNothingMovingAMajorityOfTheReplicasIsEnough() {
        Participants p = Participants.of(new Placement(0, N0, 3, THREE, THREE), "k".getBytes(StandardCharsets.UTF_8));
        assertThat(p.natural()).containsExactlyInAnyOrder(N0, N1, N2);
        assertThat(p.pending()).isEmpty();
        assertThat(p.targets()).containsExactlyInAnyOrder(N0, N1, N2);
        assertThat(p.required()).isEqualTo(2);
        assertThat(p.epoch()).isZero();
    }

    @Test
    void aJoiningReplicaIsPendingAndAddsOneToTheQuorum() {
        Placement joining = new Placement(5, N0, 3, THREE, FOUR);
        Participants p = Participants.of(joining, key(FOUR, N3, true));
        assertThat(p.natural()).containsExactlyInAnyOrder(N0, N1, N2);
        assertThat(p.pending()).containsExactly(N3);
        assertThat(p.targets()).containsExactlyInAnyOrder(N0, N1, N2, N3);
        assertThat(p.required()).isEqualTo(3); // majority(3) + 1
        assertThat(p.isPending(N3)).isTrue();
        assertThat(p.isPending(N0)).isFalse();
        assertThat(p.epoch()).isEqualTo(5);

        Participants untouched = Participants.of(joining, key(FOUR, N3, false));
        assertThat(untouched.pending()).isEmpty();
        assertThat(untouched.required()).isEqualTo(2);
    }

    @Test
    void aLeavingNodesNextOwnerIsPending() {
        // n3 leaves: it stays in the current ring (it serves reads) until the decommission finishes
        Placement leaving = new Placement(7, N0, 3, FOUR, THREE);
        byte[] k = key(FOUR, N3, true);
        Participants p = Participants.of(leaving, k);
        assertThat(p.natural()).contains(N3).hasSize(3);
        assertThat(p.pending()).hasSize(1).doesNotContain(N3);
        assertThat(p.required()).isEqualTo(3);
        assertThat(p.targets()).hasSize(4);
    }

    @Test
    void aReplacedNodeCountsTowardTheMajorityButIsSentNothing() {
        // n2 is dead and replaced by n3, which takes its token (its seed name) and listens at its URL
        NodeId replacement = new NodeId(3, "n2", 7000);
        Ring next = new Ring(List.of(N0, N1, replacement), List.of(N0.toString(), N1.toString(), N2.toString()));
        Placement replacing = new Placement(9, N0, 3, THREE, next, Map.of(2, replacement));
        Participants p = Participants.of(replacing, "k".getBytes(StandardCharsets.UTF_8));
        assertThat(p.natural()).containsExactlyInAnyOrder(N0, N1, N2);
        assertThat(p.pending()).containsExactly(replacement);
        assertThat(p.targets()).containsExactlyInAnyOrder(N0, N1, replacement);
        // every live participant: a majority of {n0, n1, n2} without n2's promise, plus the replacement
        assertThat(p.required()).isEqualTo(3);
    }
}
