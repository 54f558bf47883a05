package io.ringbase.cluster.paxos;

import static io.ringbase.cluster.paxos.ParticipantsTest.FOUR;
import static io.ringbase.cluster.paxos.ParticipantsTest.N0;
import static io.ringbase.cluster.paxos.ParticipantsTest.N1;
import static io.ringbase.cluster.paxos.ParticipantsTest.N2;
import static io.ringbase.cluster.paxos.ParticipantsTest.N3;
import static io.ringbase.cluster.paxos.ParticipantsTest.THREE;
import static io.ringbase.cluster.paxos.ParticipantsTest.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which Paxos requests a node answers: by their epoch, and, while it refuses reads, by what it is pending for. */
@Timeout(10)
class PaxosAdmissionTest {

    static final ReadGate JOINING = () -> "this node is joining";

    @Test
    void aRequestOfAnOlderEpochIsAnsweredStaleWithThisNodesEpoch() {
        PaxosAdmission a =
                new PaxosAdmission(() -> new Placement(6, N0, 3, THREE, THREE), ReadGate.OPEN, ReadGate.OPEN);
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        assertThat(a.stale(new PaxosMessages.Prepare(k, 1, 5))).isEqualTo(new PaxosMessages.Stale(6));
        assertThat(a.stale(new PaxosMessages.Prepare(k, 1, 0))).isEqualTo(new PaxosMessages.Stale(6));
        assertThat(a.stale(new PaxosMessages.Prepare(k, 1, 6))).isNull();
        assertThat(a.stale(new PaxosMessages.Prepare(k, 1, 7))).isNull(); // this node is behind: it catches up
        assertThat(a.refusal(new PaxosMessages.Prepare(k, 1, 5))).isNull();
    }

    @Test
    void aStaticClusterHasNoEpochsAndAnswersEverything() {
        PaxosAdmission a =
                new PaxosAdmission(() -> new Placement(0, N0, 3, THREE, THREE), ReadGate.OPEN, ReadGate.OPEN);
        PaxosMessages.Prepare p = new PaxosMessages.Prepare("k".getBytes(StandardCharsets.UTF_8), 1);
        assertThat(a.stale(p)).isNull();
        assertThat(a.refusal(p)).isNull();
    }

    @Test
    void aJoiningNodeAnswersOnlyForKeysItIsPendingForAtItsEpoch() {
        PaxosAdmission a = new PaxosAdmission(() -> new Placement(5, N3, 3, THREE, FOUR), ReadGate.OPEN, JOINING);
        byte[] pending = key(FOUR, N3, true);
        byte[] other = key(FOUR, N3, false);
        assertThat(a.refusal(new PaxosMessages.Prepare(pending, 1, 5))).isNull();
        assertThat(a.refusal(new PaxosMessages.Propose(1, io.ringbase.storage.Entry.value(pending, 2, new byte[1]), 5)))
                .isNull();
        assertThat(a.refusal(new PaxosMessages.Prepare(other, 1, 5))).contains("joining");
        // a proposer at a newer epoch than this node's: what it is pending for there is unknown here
        assertThat(a.refusal(new PaxosMessages.Prepare(pending, 1, 6))).contains("joining");
        assertThat(a.stale(new PaxosMessages.Prepare(pending, 1, 4))).isEqualTo(new PaxosMessages.Stale(5));
    }

    @Test
    void aNodeWithoutItsDataNoEpochKnowsOfRefusesEvenWhatItIsPendingFor() {
        PaxosAdmission a = new PaxosAdmission(
                () -> new Placement(5, N3, 3, THREE, FOUR), () -> "wiped: its peers remember it", JOINING);
        assertThat(a.refusal(new PaxosMessages.Prepare(key(FOUR, N3, true), 1, 5)))
                .contains("wiped");
    }

    @Test
    void aReplacementAnswersAsItselfNeverAsTheNodeItReplaces() {
        // n2 is dead; its replacement (node index 3) listens at n2's URL and takes its token
        NodeId replacement = new NodeId(3, "n2", 7000);
        Ring next = new Ring(List.of(N0, N1, replacement), List.of(N0.toString(), N1.toString(), N2.toString()));
        ReadGate replacing = () -> "this node is replacing another";
        PaxosAdmission a = new PaxosAdmission(
                () -> new Placement(9, replacement, 3, THREE, next, Map.of(2, replacement)), ReadGate.OPEN, replacing);
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        assertThat(a.refusal(new PaxosMessages.Prepare(k, 1, 9))).isNull();
        // a proposer from before START_REPLACE addresses n2 at this URL: stale, never answered as n2
        assertThat(a.stale(new PaxosMessages.Prepare(k, 1, 8))).isEqualTo(new PaxosMessages.Stale(9));
        assertThat(a.refusal(new PaxosMessages.Prepare(k, 1, 8))).contains("replacing");
    }
}
