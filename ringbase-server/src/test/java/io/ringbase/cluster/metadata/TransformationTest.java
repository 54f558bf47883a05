package io.ringbase.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.ringbase.cluster.metadata.Transformation.FinishDecommission;
import io.ringbase.cluster.metadata.Transformation.FinishJoin;
import io.ringbase.cluster.metadata.Transformation.FinishReplace;
import io.ringbase.cluster.metadata.Transformation.Founder;
import io.ringbase.cluster.metadata.Transformation.Initialize;
import io.ringbase.cluster.metadata.Transformation.RemoveNode;
import io.ringbase.cluster.metadata.Transformation.SetReplicationFactor;
import io.ringbase.cluster.metadata.Transformation.StartDecommission;
import io.ringbase.cluster.metadata.Transformation.StartJoin;
import io.ringbase.cluster.metadata.Transformation.StartReplace;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each transformation's validation and effect, from known metadata. */
class TransformationTest {

    static final UUID CLUSTER = UUID.fromString("11111111-2222-3333-4444-555555555555");

    static Founder founder(int n) {
        return new Founder("http://127.0.0.1:80" + (10 + n), "127.0.0.1:90" + (10 + n));
    }

    /** Three NORMAL founders (ids 1..3), RF 2, at epoch 1. */
    static ClusterMetadata threeNodes() {
        return applied(ClusterMetadata.EMPTY, new Initialize(CLUSTER, 2, List.of(founder(1), founder(2), founder(3))));
    }

    static ClusterMetadata applied(ClusterMetadata from, Transformation t) {
        Outcome outcome = t.execute(from);
        assertThat(outcome).as("%s on %s", t, from).isInstanceOf(Outcome.Applied.class);
        ClusterMetadata next = ((Outcome.Applied) outcome).metadata();
        assertThat(next.epoch()).isEqualTo(from.epoch() + 1);
        return next;
    }

    static String rejected(ClusterMetadata from, Transformation t) {
        Outcome outcome = t.execute(from);
        assertThat(outcome).as("%s on %s", t, from).isInstanceOf(Outcome.Rejected.class);
        Outcome.Rejected rejected = (Outcome.Rejected) outcome;
        assertThat(rejected.epoch()).isEqualTo(from.epoch());
        assertThat(rejected.reason()).doesNotContain("\n");
        return rejected.reason();
    }

    @Test
    void initializeGivesFoundersIdsInOrderAndEpochOne() {
        ClusterMetadata m = threeNodes();
        assertThat(m.clusterId()).isEqualTo(CLUSTER);
        assertThat(m.epoch()).isEqualTo(1);
        assertThat(m.replicationFactor()).isEqualTo(2);
        assertThat(m.nextNodeId()).isEqualTo(4);
        assertThat(m.members().values())
                .extracting(Member::id, Member::url, Member::state, Member::token)
                .containsExactly(
                        tuple(1, "http://127.0.0.1:8011", MemberState.NORMAL, 1),
                        tuple(2, "http://127.0.0.1:8012", MemberState.NORMAL, 2),
                        tuple(3, "http://127.0.0.1:8013", MemberState.NORMAL, 3));
    }

    @Test
    void joinAllocatesTheNextIdAndMovesJoiningToNormal() {
        ClusterMetadata joining = applied(threeNodes(), new StartJoin("http://127.0.0.1:8014", "127.0.0.1:9014"));
        assertThat(joining.member(4)).get().extracting(Member::state).isEqualTo(MemberState.JOINING);
        assertThat(joining.nextNodeId()).isEqualTo(5);
        ClusterMetadata joined = applied(joining, new FinishJoin(4));
        assertThat(joined.member(4)).get().extracting(Member::state).isEqualTo(MemberState.NORMAL);
        assertThat(joined.epoch()).isEqualTo(3);
    }

    @Test
    void decommissionGoesThroughLeavingToLeftAndTheIdIsNeverReused() {
        ClusterMetadata leaving = applied(threeNodes(), new StartDecommission(2));
        assertThat(leaving.member(2)).get().extracting(Member::state).isEqualTo(MemberState.LEAVING);
        ClusterMetadata left = applied(leaving, new FinishDecommission(2));
        assertThat(left.member(2)).get().extracting(Member::state).isEqualTo(MemberState.LEFT);
        // the same address may come back, as a new node with a new id
        ClusterMetadata back = applied(left, new StartJoin("http://127.0.0.1:8012", "127.0.0.1:9012"));
        assertThat(back.member(4)).get().extracting(Member::url).isEqualTo("http://127.0.0.1:8012");
        assertThat(back.member(2)).get().extracting(Member::state).isEqualTo(MemberState.LEFT);
    }

    @Test
    void replaceTakesTheTokenOfTheReplacedNodeWhichLeavesOnFinish() {
        ClusterMetadata replacing =
                applied(threeNodes(), new StartReplace(3, "http://127.0.0.1:8013", "127.0.0.1:9013"));
        Member replacement = replacing.member(4).orElseThrow();
        assertThat(replacement.state()).isEqualTo(MemberState.REPLACING);
        assertThat(replacement.token()).isEqualTo(3);
        assertThat(replacement.replaces()).isEqualTo(3);
        assertThat(replacing.member(3)).get().extracting(Member::state).isEqualTo(MemberState.NORMAL);

        ClusterMetadata replaced = applied(replacing, new FinishReplace(4));
        assertThat(replaced.member(4)).get().extracting(Member::state).isEqualTo(MemberState.NORMAL);
        assertThat(replaced.member(3)).get().extracting(Member::state).isEqualTo(MemberState.LEFT);
        assertThat(replaced.normalCount()).isEqualTo(3);
    }

    @Test
    void removeAbandonsAJoinAndRemovesADeadNormalNode() {
        ClusterMetadata joining = applied(threeNodes(), new StartJoin("http://127.0.0.1:8014", "127.0.0.1:9014"));
        ClusterMetadata abandoned = applied(joining, new RemoveNode(4));
        assertThat(abandoned.member(4)).get().extracting(Member::state).isEqualTo(MemberState.LEFT);
        ClusterMetadata removed = applied(abandoned, new RemoveNode(1));
        assertThat(removed.normalCount()).isEqualTo(2);
    }

    @Test
    void setReplicationFactorChangesOnlyTheFactor() {
        ClusterMetadata m = applied(threeNodes(), new SetReplicationFactor(3));
        assertThat(m.replicationFactor()).isEqualTo(3);
        assertThat(m.members()).isEqualTo(threeNodes().members());
    }

    static Stream<Arguments> invalidChanges() {
        ClusterMetadata three = threeNodes();
        ClusterMetadata joining = applied(three, new StartJoin("http://127.0.0.1:8014", "127.0.0.1:9014"));
        ClusterMetadata rf3 = applied(three, new SetReplicationFactor(3));
        return Stream.of(
                Arguments.of(ClusterMetadata.EMPTY, new StartJoin("http://h:1", "h:2"), "cluster is not initialized"),
                Arguments.of(ClusterMetadata.EMPTY, new FinishJoin(1), "cluster is not initialized"),
                Arguments.of(three, new Initialize(CLUSTER, 1, List.of(founder(1))), "already initialized"),
                Arguments.of(
                        ClusterMetadata.EMPTY,
                        new Initialize(ClusterMetadata.NO_CLUSTER, 1, List.of(founder(1))),
                        "cluster id must not be"),
                Arguments.of(ClusterMetadata.EMPTY, new Initialize(CLUSTER, 1, List.of()), "founding members, got 0"),
                Arguments.of(
                        ClusterMetadata.EMPTY,
                        new Initialize(CLUSTER, 2, List.of(founder(1))),
                        "replication factor must be 1..1"),
                Arguments.of(
                        ClusterMetadata.EMPTY,
                        new Initialize(CLUSTER, 1, List.of(founder(1), founder(1))),
                        "is given twice"),
                Arguments.of(three, new StartJoin("http://127.0.0.1:8011", "127.0.0.1:9999"), "in use by node 1"),
                Arguments.of(three, new StartJoin("http://127.0.0.1:9999", "127.0.0.1:9012"), "in use by node 2"),
                Arguments.of(
                        joining,
                        new StartJoin("http://127.0.0.1:8015", "127.0.0.1:9015"),
                        "another membership change is in progress: node 4 is JOINING"),
                Arguments.of(joining, new StartDecommission(1), "node 4 is JOINING"),
                Arguments.of(joining, new SetReplicationFactor(3), "node 4 is JOINING"),
                Arguments.of(joining, new RemoveNode(1), "node 4 is JOINING"),
                Arguments.of(three, new FinishJoin(2), "node 2 is NORMAL, not JOINING"),
                Arguments.of(three, new FinishJoin(9), "no node 9"),
                Arguments.of(three, new FinishDecommission(1), "node 1 is NORMAL, not LEAVING"),
                Arguments.of(three, new FinishReplace(1), "node 1 is NORMAL, not REPLACING"),
                Arguments.of(
                        rf3,
                        new StartDecommission(1),
                        "decommissioning node 1 would leave 2 NORMAL members, fewer than the replication factor 3"),
                Arguments.of(rf3, new RemoveNode(1), "removing node 1 would leave 2 NORMAL members"),
                Arguments.of(three, new SetReplicationFactor(4), "replication factor must be 1..3"),
                Arguments.of(three, new SetReplicationFactor(0), "replication factor must be 1..3"),
                Arguments.of(three, new SetReplicationFactor(2), "replication factor is already 2"),
                Arguments.of(
                        applied(applied(three, new StartDecommission(3)), new FinishDecommission(3)),
                        new RemoveNode(3),
                        "node 3 has already LEFT"),
                Arguments.of(three, new StartReplace(1, "http://127.0.0.1:8012", "127.0.0.1:9099"), "in use by node 2"),
                Arguments.of(
                        applied(three, new StartDecommission(1)),
                        new StartReplace(1, "http://127.0.0.1:8020", "127.0.0.1:9020"),
                        "node 1 is LEAVING, not NORMAL"));
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("invalidChanges")
    void invalidChangesAreRejectedWithAReasonAndChangeNothing(
            ClusterMetadata from, Transformation change, String reason) {
        assertThat(rejected(from, change)).contains(reason);
    }

    @Test
    void initializeMakesTheFoundersTheVoters() {
        assertThat(threeNodes().voters()).containsExactly(1, 2, 3);
    }

    @Test
    void finishingTheReplacementOfAVoterPutsItInTheVotersPlace() {
        ClusterMetadata m = applied(threeNodes(), new StartReplace(1, "http://127.0.0.1:8020", "127.0.0.1:9020"));
        assertThat(m.voters()).as("recorded at FINISH_REPLACE only").containsExactly(1, 2, 3);
        m = applied(m, new FinishReplace(4));
        assertThat(m.voters()).containsExactly(2, 3, 4);
    }

    @Test
    void finishingTheReplacementOfANodeOutsideTheGroupLeavesTheVoters() {
        ClusterMetadata m = applied(threeNodes(), new StartJoin("http://127.0.0.1:8030", "127.0.0.1:9030"));
        m = applied(m, new FinishJoin(4));
        m = applied(m, new StartReplace(4, "http://127.0.0.1:8040", "127.0.0.1:9040"));
        m = applied(m, new FinishReplace(5));
        assertThat(m.voters()).containsExactly(1, 2, 3);
    }
}
