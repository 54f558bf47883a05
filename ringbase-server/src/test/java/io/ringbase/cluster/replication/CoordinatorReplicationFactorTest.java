package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.CoordinatorTest.FakeReplica;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The coordinator of a 6-node cluster with replication factor 3, against fake replicas: a request goes to
 * the first {@code from} (at most 3) nodes of the key's placement order and never to the others, and a
 * {@code from} above the replication factor is refused before anything is sent.
 */
class CoordinatorReplicationFactorTest {

    static final List<String> URLS = List.of(
            "http://10.0.0.1:8080",
            "http://10.0.0.2:8080",
            "http://10.0.0.3:8080",
            "http://10.0.0.4:8080",
            "http://10.0.0.5:8080",
            "http://10.0.0.6:8080");
    static final Topology TOPOLOGY = Topology.parse(URLS, URLS.getFirst(), 3);

    final List<FakeReplica> replicas = new ArrayList<>();
    final List<NodeId> hinted = Collections.synchronizedList(new ArrayList<>());
    final Coordinator coordinator;

    CoordinatorReplicationFactorTest() {
        for (NodeId n : TOPOLOGY.nodes()) {
            replicas.add(new FakeReplica(n));
        }
        coordinator = new Coordinator(
                TOPOLOGY,
                List.copyOf(replicas),
                new Liveness(TOPOLOGY.size()),
                (target, entry) -> {
                    hinted.add(target);
                    return CompletableFuture.completedFuture(null);
                },
                new HybridLogicalClock(() -> 1_000L),
                Runnable::run);
    }

    private List<NodeId> written() {
        List<NodeId> out = new ArrayList<>();
        for (FakeReplica r : replicas) {
            if (!r.writes.isEmpty()) {
                out.add(r.node);
            }
            r.writes.clear();
        }
        return out;
    }

    @Test
    void aWriteOfTheDefaultQuorumReachesExactlyTheKeysThreeReplicas() throws Exception {
        for (int i = 0; i < 50; i++) {
            byte[] key = ("key" + i).getBytes(StandardCharsets.UTF_8);
            coordinator
                    .write(Entry.value(key, 100 + i, new byte[] {1}), 2, TOPOLOGY.defaultFrom())
                    .get(5, TimeUnit.SECONDS);
            assertThat(written())
                    .as("key%d", i)
                    .hasSize(3)
                    .containsExactlyInAnyOrderElementsOf(
                            coordinator.placement().current().replicas(key, 3));
        }
        assertThat(hinted).isEmpty();
    }

    @Test
    void aSmallerFromTakesAPrefixOfTheKeysReplicas() throws Exception {
        byte[] key = "prefix".getBytes(StandardCharsets.UTF_8);
        List<NodeId> three = coordinator.placement().current().replicas(key, 3);
        for (int from = 1; from <= 3; from++) {
            coordinator
                    .write(Entry.value(key, 10 + from, new byte[] {1}), 1, from)
                    .get(5, TimeUnit.SECONDS);
            assertThat(written()).containsExactlyInAnyOrderElementsOf(three.subList(0, from));
        }
    }

    @Test
    void aFromAboveTheReplicationFactorIsRefusedAndNothingIsSent() {
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> coordinator.write(Entry.value(key, 5, new byte[] {1}), 2, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("need 0 < ack <= from <= 3 (the replication factor), got ack=2 from=4");
        assertThatThrownBy(() -> coordinator.read(key, 1, 6)).isInstanceOf(IllegalArgumentException.class);
        int calls = 0;
        for (FakeReplica r : replicas) {
            calls += r.calls;
        }
        assertThat(calls).isZero();
    }
}
