package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.CoordinatorTest.FakeReplica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The coordinator while a fourth node joins a 3-node cluster of replication factor 3: writes reach the key's
 * replicas in the current ring and, where the joining node takes a key over, that node too, and wait for one
 * more acknowledgement for it; reads never ask the joining node; after the switch reads ask the new owners.
 */
class CoordinatorPlacementTest {

    static final List<String> URLS = List.of("http://10.0.0.1:8080", "http://10.0.0.2:8080", "http://10.0.0.3:8080");
    static final Topology TOPOLOGY = Topology.parse(URLS, URLS.getFirst(), 3);
    static final NodeId JOINING = new NodeId(3, "10.0.0.4", 8080);

    final List<FakeReplica> replicas = new ArrayList<>();
    final FakeReplica joining = new FakeReplica(JOINING);
    final Coordinator coordinator;
    final Ring before = new Ring(TOPOLOGY);
    final Ring after;

    CoordinatorPlacementTest() {
        for (NodeId n : TOPOLOGY.nodes()) {
            replicas.add(new FakeReplica(n));
        }
        List<NodeId> four = new ArrayList<>(TOPOLOGY.nodes());
        four.add(JOINING);
        after = new Ring(four);
        coordinator = new Coordinator(
                TOPOLOGY,
                List.copyOf(replicas),
                new Liveness(HybridLogicalClock.MAX_NODES),
                (target, entry) -> CompletableFuture.completedFuture(null),
                new HybridLogicalClock(() -> 1_000L),
                Runnable::run);
        coordinator.place(new Placement(1, TOPOLOGY.self(), 3, before, after), n -> {
            assertThat(n).isEqualTo(JOINING);
            return joining;
        });
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** A key the joining node takes over (it is among its first three in the new ring). */
    private byte[] movedKey() {
        for (int i = 0; ; i++) {
            if (after.isReplica(Ring.keyHash(key(i)), 3, JOINING)) {
                return key(i);
            }
        }
    }

    @Test
    void aWriteOfAMovedKeyAlsoReachesTheJoiningNode() throws Exception {
        byte[] key = movedKey();
        coordinator.write(Entry.value(key, 100, new byte[] {1}), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(joining.writes).hasSize(1);
        assertThat(replicas).allSatisfy(r -> assertThat(r.writes).hasSize(1));
    }

    @Test
    void aWriteOfAKeyThatStaysDoesNotReachTheJoiningNode() throws Exception {
        for (int i = 0; i < 50; i++) {
            if (!after.isReplica(Ring.keyHash(key(i)), 3, JOINING)) {
                coordinator
                        .write(Entry.value(key(i), 100, new byte[] {1}), 2, 3)
                        .get(5, TimeUnit.SECONDS);
            }
        }
        assertThat(joining.writes).isEmpty();
    }

    @Test
    void aMovedKeysWriteWaitsForOneMoreAcknowledgement() {
        byte[] key = movedKey();
        // the joining node and one old replica fail: two of four acknowledge, three are needed
        joining.fails(n -> new ReplicaException.Failed(n, "write", new java.io.IOException("disk full")));
        replicas.get(1).fails(n -> new ReplicaException.Failed(n, "write", new java.io.IOException("disk full")));
        assertThatThrownBy(() -> coordinator
                        .write(Entry.value(key, 100, new byte[] {1}), 2, 3)
                        .get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);
    }

    @Test
    void readsAskTheCurrentRingOnlyUntilTheSwitch() throws Exception {
        byte[] key = movedKey();
        for (int i = 0; i < 5; i++) {
            coordinator.read(key, 3, 3).get(5, TimeUnit.SECONDS);
        }
        assertThat(joining.calls).isZero();
        coordinator.place(new Placement(2, TOPOLOGY.self(), 3, after, after), n -> joining);
        coordinator.read(key, 3, 3).get(5, TimeUnit.SECONDS);
        assertThat(joining.calls).isEqualTo(1);
    }

    @Test
    void aReplacementTakesTheReplacedNodesPlaceInsteadOfNeedingOneMoreAcknowledgement() throws Exception {
        // node 2 is dead and being replaced: the replacement carries its token, so it owns exactly its keys
        NodeId replacement = new NodeId(4, "10.0.0.5", 8080);
        FakeReplica replacing = new FakeReplica(replacement);
        List<NodeId> nextNodes =
                List.of(TOPOLOGY.nodes().get(0), TOPOLOGY.nodes().get(1), replacement);
        Ring next = new Ring(nextNodes, List.of(URLS.get(0), URLS.get(1), URLS.get(2)));
        coordinator.place(new Placement(2, TOPOLOGY.self(), 3, before, next, Map.of(2, replacement)), n -> replacing);
        replicas.get(2).fails(n -> new ReplicaException.Failed(n, "write", new java.io.IOException("dead")));
        replicas.get(1).writeBehaviour = e -> CompletableFuture.failedFuture(
                new ReplicaException.Failed(replicas.get(1).node(), "write", new java.io.IOException("disk full")));
        // two of the write replicas {0, 1, replacement} acknowledge: a quorum of 2 of 3, no pending surcharge
        coordinator.write(Entry.value(key(1), 100, new byte[] {1}), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(replacing.writes).hasSize(1);
        assertThat(replicas.get(0).writes).hasSize(1);
        // reads still ask the current ring: the replacement answers none until the switch
        replicas.get(2).behaviour = n -> CompletableFuture.completedFuture(null);
        int callsBefore = replacing.calls;
        coordinator.read(key(1), 2, 3).get(5, TimeUnit.SECONDS);
        assertThat(replacing.calls).isEqualTo(callsBefore);
    }

    @Test
    void anOlderPlacementIsIgnored() {
        coordinator.place(new Placement(1, TOPOLOGY.self(), 3, after, after), n -> joining);
        assertThat(coordinator.placement().changing()).isTrue();
    }
}
