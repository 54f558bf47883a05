package io.ringbase.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The client computes keys' hashes and replicas exactly as the nodes do: {@link XxHash64} against the
 * server's {@link Ring#keyHash} on random keys of every length class of XXH64 (under 4, under 8, under 32 and
 * 32 bytes or more), and {@link ClusterRing#replicas} against {@link Ring#replicas} on random rings, some
 * with a replacement's seed name.
 */
class ServerPlacementCrossCheckTest {

    @Test
    void keyHashIsTheServers() {
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            byte[] key = new byte[random.nextInt(i % 10 == 0 ? 300 : 40)];
            random.nextBytes(key);
            assertThat(XxHash64.hash(key))
                    .as("key %d of %d bytes", i, key.length)
                    .isEqualTo(Ring.keyHash(key));
        }
    }

    @Test
    void replicasAreTheServers() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(10);
            List<NodeId> nodes = new ArrayList<>();
            List<String> seeds = new ArrayList<>();
            StringBuilder text = new StringBuilder("ringbase-ring 1\nepoch " + round + "\n");
            int rf = 1 + random.nextInt(n);
            text.append("replication-factor ").append(rf).append("\nhash xxh64\nplacement rendezvous-fmix64\n");
            for (int i = 0; i < n; i++) {
                NodeId node = new NodeId(i, "10.0." + round + "." + i, 8080 + random.nextInt(3));
                String seed = random.nextInt(4) == 0 ? "http://10.9.9." + i + ":8080" : node.toString(); // replaced
                nodes.add(node);
                seeds.add(seed);
                text.append("node ").append(node).append(' ').append(seed).append('\n');
            }
            Ring server = new Ring(nodes, seeds);
            ClusterRing client = ClusterRing.parse(text.toString());
            for (int k = 0; k < 500; k++) {
                byte[] key = ("user/" + random.nextLong()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                int from = 1 + random.nextInt(rf);
                List<String> expected = server.replicas(key, from).stream()
                        .map(NodeId::toString)
                        .toList();
                assertThat(client.replicas(key, from).stream()
                                .map(URI::toString)
                                .toList())
                        .as("ring %d, key %d", round, k)
                        .isEqualTo(expected);
            }
        }
    }
}
