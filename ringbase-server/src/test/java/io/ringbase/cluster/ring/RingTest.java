package io.ringbase.cluster.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RingTest {

    static final int KEYS = 1_000_000;

    static Topology topology(int n, String urlPattern) {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            urls.add(urlPattern.formatted(i));
        }
        return Topology.parse(urls, urls.getFirst());
    }

    /** XXH64 of a million random 16-byte keys, the same for every test (fixed seed). */
    private static final long[] KEY_HASHES = keyHashes();

    private static long[] keyHashes() {
        SplittableRandom random = new SplittableRandom(20261121L);
        long[] hashes = new long[KEYS];
        byte[] key = new byte[16];
        for (int i = 0; i < KEYS; i++) {
            random.nextBytes(key);
            hashes[i] = Ring.keyHash(key);
        }
        return hashes;
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 4, 5, 6, 7, 8, 9, 10})
    void everyNodeIsFirstReplicaForItsFairShareWithinTenPercent(int n) {
        for (String p : List.of("http://localhost:80%02d", "http://10.0.0.%d:8080")) {
            Ring ring = new Ring(topology(n, p));
            long[] first = new long[n];
            for (long h : KEY_HASHES) {
                first[ring.replicasOfHash(h, 1).getFirst().index()]++;
            }
            double fair = (double) KEYS / n;
            for (int i = 0; i < n; i++) {
                assertThat((double) first[i])
                        .as("keys whose first replica is node %d of %d (%s)", i, n, p)
                        .isBetween(fair * 0.9, fair * 1.1);
            }
        }
    }

    @Test
    void twoRingsOfTheSameTopologyAgreeOnEveryKey() {
        Ring a = new Ring(topology(7, "http://host-%d:9000"));
        Topology t = topology(7, "http://host-%d:9000");
        Ring b = new Ring(new Topology(t.nodes(), t.node(4))); // another node's view: same list, other self
        for (int i = 0; i < 100_000; i++) {
            assertThat(b.replicasOfHash(KEY_HASHES[i], 7)).isEqualTo(a.replicasOfHash(KEY_HASHES[i], 7));
        }
    }

    @Test
    void replicasForFAreAPrefixOfReplicasForFPlusOneAndDistinct() {
        int n = 6;
        Ring ring = new Ring(topology(n, "http://10.1.0.%d:8080"));
        for (int i = 0; i < 20_000; i++) {
            long h = KEY_HASHES[i];
            List<NodeId> all = ring.replicasOfHash(h, n);
            assertThat(new HashSet<>(all)).hasSize(n);
            for (int f = 1; f < n; f++) {
                assertThat(ring.replicasOfHash(h, f)).isEqualTo(all.subList(0, f));
            }
            for (NodeId node : all) {
                int position = all.indexOf(node);
                for (int f = 1; f <= n; f++) {
                    assertThat(ring.isReplica(h, f, node))
                            .as("node at %d, from %d", position, f)
                            .isEqualTo(position < f);
                }
            }
        }
    }

    @Test
    void replicasOfAKeyAreItsHashsReplicas() {
        Ring ring = new Ring(topology(5, "http://localhost:80%02d"));
        byte[] key = "user/42".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(ring.replicas(key, 3)).isEqualTo(ring.replicasOfHash(Ring.keyHash(key), 3));
    }

    @Test
    void fromOutsideOneToSizeIsRefused() {
        Ring ring = new Ring(topology(3, "http://localhost:80%02d"));
        assertThatThrownBy(() -> ring.replicasOfHash(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ring.replicasOfHash(1, 4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSingleNodeOwnsEverything() {
        Ring ring = new Ring(Topology.single("localhost", 8080));
        assertThat(ring.replicasOfHash(KEY_HASHES[0], 1)).containsExactly(new NodeId(0, "localhost", 8080));
    }
}
