package io.ringbase.cluster.metadata;

import static io.ringbase.cluster.metadata.TransformationTest.applied;
import static io.ringbase.cluster.metadata.TransformationTest.threeNodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which members reads and writes use at each step of a membership change, and the value's own checks. */
class ClusterMetadataTest {

    private static List<Integer> ids(List<Member> members) {
        return members.stream().map(Member::id).toList();
    }

    @Test
    void aJoiningNodeGetsWritesButNoReadsUntilItsJoinFinishes() {
        ClusterMetadata joining =
                applied(threeNodes(), new Transformation.StartJoin("http://127.0.0.1:8014", "127.0.0.1:9014"));
        assertThat(ids(joining.readPlacement())).containsExactly(1, 2, 3);
        assertThat(ids(joining.writePlacement())).containsExactly(1, 2, 3, 4);
        assertThat(joining.changeInProgress()).get().extracting(Member::id).isEqualTo(4);

        ClusterMetadata joined = applied(joining, new Transformation.FinishJoin(4));
        assertThat(ids(joined.readPlacement())).containsExactly(1, 2, 3, 4);
        assertThat(ids(joined.writePlacement())).containsExactly(1, 2, 3, 4);
        assertThat(joined.changeInProgress()).isEmpty();
    }

    @Test
    void aLeavingNodeKeepsServingReadsAndWritesUntilItsDecommissionFinishes() {
        ClusterMetadata leaving = applied(threeNodes(), new Transformation.StartDecommission(2));
        assertThat(ids(leaving.readPlacement())).containsExactly(1, 2, 3);
        assertThat(ids(leaving.writePlacement())).containsExactly(1, 2, 3);

        ClusterMetadata left = applied(leaving, new Transformation.FinishDecommission(2));
        assertThat(ids(left.readPlacement())).containsExactly(1, 3);
        assertThat(ids(left.writePlacement())).containsExactly(1, 3);
    }

    @Test
    void aReplacementCountsTowardNoReadQuorumUntilItHasFinished() {
        ClusterMetadata replacing =
                applied(threeNodes(), new Transformation.StartReplace(3, "http://127.0.0.1:8020", "127.0.0.1:9020"));
        assertThat(ids(replacing.readPlacement())).containsExactly(1, 2, 3);
        assertThat(ids(replacing.writePlacement())).containsExactly(1, 2, 3, 4);

        ClusterMetadata replaced = applied(replacing, new Transformation.FinishReplace(4));
        assertThat(ids(replaced.readPlacement())).containsExactly(1, 2, 4);
        assertThat(replaced.member(4).orElseThrow().token()).isEqualTo(3);
    }

    @Test
    void membersAreCopiedAndUnmodifiable() {
        TreeMap<Integer, Member> members = new TreeMap<>();
        members.put(1, new Member(1, "http://a:1", "a:2", MemberState.NORMAL, 1, 0));
        ClusterMetadata m = new ClusterMetadata(TransformationTest.CLUSTER, 1, 1, 2, members);
        members.clear();
        assertThat(m.members()).hasSize(1);
        assertThatThrownBy(() -> m.members().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anIdAtOrPastNextNodeIdIsRefused() {
        TreeMap<Integer, Member> members = new TreeMap<>();
        members.put(2, new Member(2, "http://a:1", "a:2", MemberState.NORMAL, 2, 0));
        assertThatThrownBy(() -> new ClusterMetadata(TransformationTest.CLUSTER, 1, 1, 2, members))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("member id 2 is not below next node id 2");
    }

    @Test
    void malformedAddressesAreRefusedNamingThem() {
        assertThatThrownBy(() -> new Transformation.StartJoin("https://a:1", "a:2"))
                .hasMessage("url must be http://host:port, got https://a:1");
        assertThatThrownBy(() -> new Transformation.StartJoin("http://a:1/path", "a:2"))
                .hasMessage("url must be http://host:port, got http://a:1/path");
        assertThatThrownBy(() -> new Transformation.StartJoin("http://a:1", "a"))
                .hasMessage("metadata address must be host:port, got a");
        assertThatThrownBy(() -> new Transformation.StartJoin("http://a:1", "a:70000"))
                .hasMessage("metadata address port must be 1..65535, got a:70000");
    }
}
