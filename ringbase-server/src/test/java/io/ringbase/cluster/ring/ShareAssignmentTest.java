package io.ringbase.cluster.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(30)
class ShareAssignmentTest {

    private static final int KEYS = 20_000;

    private static Ring ring(int n) {
        return new Ring(RingTest.topology(n, "http://10.0.0.%d:8080"));
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** Every key whose shares' paths are {@code paths}, each counted per path that holds it. */
    private static Map<Integer, Integer> holders(ShareAssignment a, List<List<NodeId>> paths) {
        Map<Integer, Integer> count = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            for (List<NodeId> p : paths) {
                if (a.inShare(key(i), p)) {
                    count.merge(i, 1, Integer::sum);
                }
            }
        }
        return count;
    }

    @ParameterizedTest
    @CsvSource({"3,3", "5,3", "5,2", "1,1"})
    void everyKeyIsInExactlyOneNodesShare(int nodes, int rf) {
        Ring ring = ring(nodes);
        ShareAssignment a = new ShareAssignment(ring, rf, Set.of());
        List<List<NodeId>> own = ring.nodes().stream().map(List::of).toList();
        Map<Integer, Integer> count = holders(a, own);
        assertThat(count).hasSize(KEYS);
        assertThat(count.values()).allMatch(n -> n == 1);
        for (int i = 0; i < KEYS; i++) {
            assertThat(a.chosen(key(i))).isEqualTo(ring.replicas(key(i), rf).getFirst());
        }
    }

    @Test
    void theAssignmentIsDeterministic() {
        Ring ring = ring(5);
        Set<NodeId> down = Set.of(ring.nodes().get(2));
        ShareAssignment a = new ShareAssignment(ring, 3, down);
        ShareAssignment b = new ShareAssignment(ring(5), 3, Set.of(ring.nodes().get(2)));
        for (int i = 0; i < KEYS; i++) {
            assertThat(a.chosen(key(i))).isEqualTo(b.chosen(key(i)));
        }
    }

    @Test
    void aNodeDownAtTheStartHasNoShareAndItsKeysGoToTheirNextReplica() {
        Ring ring = ring(5);
        NodeId gone = ring.nodes().get(1);
        ShareAssignment a = new ShareAssignment(ring, 3, Set.of(gone));
        int moved = 0;
        for (int i = 0; i < KEYS; i++) {
            List<NodeId> replicas = ring.replicas(key(i), 3);
            NodeId chosen = a.chosen(key(i));
            assertThat(chosen).isNotEqualTo(gone);
            if (replicas.getFirst().equals(gone)) {
                assertThat(chosen).isEqualTo(replicas.get(1));
                moved++;
            } else {
                assertThat(chosen).isEqualTo(replicas.getFirst());
            }
            assertThat(a.inShare(key(i), List.of(gone))).isFalse();
        }
        assertThat(moved).isPositive();
        List<List<NodeId>> own = ring.nodes().stream().map(List::of).toList();
        assertThat(holders(a, own))
                .hasSize(KEYS)
                .allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void aFailedNodesShareIsHandedOnOnceToTheNextReplicaOfEachKey() {
        Ring ring = ring(5);
        ShareAssignment a = new ShareAssignment(ring, 3, Set.of());
        NodeId failed = ring.nodes().get(3);
        List<List<NodeId>> paths = new ArrayList<>();
        for (NodeId n : ring.nodes()) {
            if (!n.equals(failed)) {
                paths.add(List.of(n)); // the shares that go on
                paths.add(List.of(failed, n)); // the failed share, handed on
            }
        }
        Map<Integer, Integer> count = holders(a, paths);
        assertThat(count).hasSize(KEYS);
        assertThat(count.values()).allMatch(n -> n == 1);
        for (int i = 0; i < KEYS; i++) {
            List<NodeId> replicas = ring.replicas(key(i), 3);
            if (replicas.getFirst().equals(failed)) {
                assertThat(a.inShare(key(i), List.of(failed, replicas.get(1)))).isTrue();
            }
        }
        // and again when the node it went to fails as well
        NodeId second = ring.nodes().get(0);
        List<List<NodeId>> again = new ArrayList<>();
        for (NodeId n : ring.nodes()) {
            if (!n.equals(failed) && !n.equals(second)) {
                again.add(List.of(n));
                again.add(List.of(failed, n));
                again.add(List.of(second, n));
                again.add(List.of(failed, second, n));
                again.add(List.of(second, failed, n));
            }
        }
        Map<Integer, Integer> twice = holders(a, again);
        assertThat(twice).hasSize(KEYS);
        assertThat(twice.values()).allMatch(n -> n == 1);
    }

    @Test
    void aShareCannotBeHandedOnOnceAllOfAKeysReplicasMayBeGone() {
        Ring ring = ring(3);
        List<NodeId> n = ring.nodes();
        ShareAssignment a = new ShareAssignment(ring, 3, Set.of(n.get(0)));
        assertThat(a.canHandOn(List.of(n.get(1)))).isTrue();
        assertThat(a.canHandOn(List.of(n.get(1), n.get(2)))).isFalse();
        assertThat(new ShareAssignment(ring, 3, Set.of()).canHandOn(List.of(n.get(1), n.get(2))))
                .isTrue();
        assertThatThrownBy(() -> a.inShare(key(1), List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ShareAssignment(ring, 4, Set.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
