package io.ringbase.cluster.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamPlan#wants} against a brute-force model built from {@link Ring#replicasOfHash}: for a join
 * (3 -> 4 nodes) and a decommission (4 -> 3), rf 1..3, every key's new replica receives it from exactly
 * one source, the displaced one, and no node that already held a key receives it.
 */
class StreamPlanTest {

    static final List<NodeId> FOUR = List.of(
            new NodeId(0, "10.0.0.1", 8080),
            new NodeId(1, "10.0.0.2", 8080),
            new NodeId(2, "10.0.0.3", 8080),
            new NodeId(3, "10.0.0.4", 8080));
    static final Ring THREE_RING = new Ring(FOUR.subList(0, 3));
    static final Ring FOUR_RING = new Ring(FOUR);
    static final int KEYS = 20_000;

    @Test
    void aJoiningNodeGetsEachKeyOnceFromTheReplicaItDisplaces() {
        for (int rf = 1; rf <= 3; rf++) {
            checkAgainstModel(THREE_RING, FOUR_RING, rf);
        }
    }

    @Test
    void aDecommissionMovesEachKeyOnceFromTheLeavingNode() {
        for (int rf = 1; rf <= 3; rf++) {
            checkAgainstModel(FOUR_RING, THREE_RING, rf);
        }
    }

    @Test
    void anyOldReplicaLetsEveryOldReplicaSendButStillOnlyToANewReplica() {
        SplittableRandom random = new SplittableRandom(7);
        int rf = 2;
        for (int k = 0; k < KEYS; k++) {
            long h = random.nextLong();
            Set<NodeId> old = new HashSet<>(THREE_RING.replicasOfHash(h, rf));
            Set<NodeId> now = new HashSet<>(FOUR_RING.replicasOfHash(h, rf));
            for (NodeId s : THREE_RING.nodes()) {
                for (NodeId t : FOUR_RING.nodes()) {
                    if (s.equals(t)) {
                        continue;
                    }
                    boolean model = old.contains(s) && now.contains(t) && !old.contains(t);
                    assertThat(new StreamPlan(1, rf, THREE_RING, FOUR_RING, s, t, true).wants(h))
                            .as("key %x from %s to %s", h, s, t)
                            .isEqualTo(model);
                }
            }
        }
    }

    @Test
    void aPlanThatCannotBeIsRefused() {
        NodeId outsider = new NodeId(9, "10.0.0.9", 8080);
        assertThatThrownBy(() -> new StreamPlan(1, 4, THREE_RING, FOUR_RING, FOUR.get(0), FOUR.get(3), false))
                .hasMessageContaining("rf must be 1..3");
        assertThatThrownBy(() -> new StreamPlan(1, 1, THREE_RING, FOUR_RING, FOUR.get(3), FOUR.get(0), false))
                .hasMessageContaining("source http://10.0.0.4:8080 is not in the ring before");
        assertThatThrownBy(() -> new StreamPlan(1, 1, THREE_RING, FOUR_RING, FOUR.get(0), outsider, false))
                .hasMessageContaining("target http://10.0.0.9:8080 is not in the ring after");
        assertThatThrownBy(() -> new StreamPlan(1, 1, THREE_RING, FOUR_RING, FOUR.get(0), FOUR.get(0), false))
                .hasMessageContaining("same node");
    }

    /** Every (source, target) plan of the change, on {@value #KEYS} key hashes, against the model. */
    private static void checkAgainstModel(Ring before, Ring after, int rf) {
        SplittableRandom random = new SplittableRandom(rf);
        int moved = 0;
        for (int k = 0; k < KEYS; k++) {
            long h = random.nextLong();
            Set<NodeId> old = new HashSet<>(before.replicasOfHash(h, rf));
            Set<NodeId> now = new HashSet<>(after.replicasOfHash(h, rf));
            for (NodeId t : after.nodes()) {
                int received = 0;
                for (NodeId s : before.nodes()) {
                    if (s.equals(t)) {
                        continue;
                    }
                    boolean wants = new StreamPlan(5, rf, before, after, s, t, false).wants(h);
                    // the model: the one old replica that leaves the key's list sends to the one that enters
                    boolean model = old.contains(s) && !now.contains(s) && now.contains(t) && !old.contains(t);
                    assertThat(wants)
                            .as("rf %d, key %x from %s to %s (old %s, new %s)", rf, h, s, t, old, now)
                            .isEqualTo(model);
                    received += wants ? 1 : 0;
                }
                boolean gains = now.contains(t) && !old.contains(t);
                assertThat(received)
                        .as("rf %d, key %x: copies %s receives (old %s, new %s)", rf, h, t, old, now)
                        .isEqualTo(gains ? 1 : 0);
                moved += received;
            }
        }
        // a sanity check that the test moved keys at all: about rf/4 of them for a fourth node
        assertThat(moved).as("keys moved at rf %d", rf).isGreaterThan(KEYS * rf / 8);
    }
}
