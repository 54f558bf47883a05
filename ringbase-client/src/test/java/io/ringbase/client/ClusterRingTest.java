package io.ringbase.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing {@code GET /v0/ring?format=text} and routing by it, without a node. */
class ClusterRingTest {

    private static final String RING = """
            ringbase-ring 1
            epoch 7
            replication-factor 2
            hash xxh64
            placement rendezvous-fmix64
            node http://10.0.0.1:8080 http://10.0.0.1:8080
            some-later-field 1 2 3
            node http://10.0.0.2:8080 http://10.0.0.9:8080
            node http://10.0.0.3:8080 http://10.0.0.3:8080
            """;

    @Test
    void xxh64MatchesTheSpecificationsVectors() {
        assertThat(XxHash64.hash(new byte[0])).isEqualTo(0xEF46DB3751D8E999L);
        assertThat(XxHash64.hash("abc".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x44BC2CF5AD770999L);
    }

    @Test
    void placesTheDocumentedExampleAsDocumented() { // docs/http-api.md, "Placement for clients"
        StringBuilder text = new StringBuilder(
                "ringbase-ring 1\nepoch 0\nreplication-factor 3\nhash xxh64\nplacement rendezvous-fmix64\n");
        for (int i = 1; i <= 5; i++) {
            text.append("node http://10.0.0.")
                    .append(i)
                    .append(":8080 http://10.0.0.")
                    .append(i)
                    .append(":8080\n");
        }
        byte[] key = b("user/42");
        assertThat(XxHash64.hash(key)).isEqualTo(0xE89F2A24FC2BB767L);
        assertThat(ClusterRing.fmix64(XxHash64.hash(key) ^ XxHash64.hash(b("http://10.0.0.3:8080"))))
                .isEqualTo(0x96DA2A0683E2DBC5L);
        assertThat(ClusterRing.parse(text.toString()).replicas(key, 3))
                .containsExactly(
                        URI.create("http://10.0.0.3:8080"),
                        URI.create("http://10.0.0.5:8080"),
                        URI.create("http://10.0.0.4:8080"));
    }

    @Test
    void parsesTheTextFormSkippingUnknownLines() {
        ClusterRing r = ClusterRing.parse(RING);
        assertThat(r.epoch()).isEqualTo(7);
        assertThat(r.replicationFactor()).isEqualTo(2);
        assertThat(r.urls())
                .containsExactly(
                        URI.create("http://10.0.0.1:8080"),
                        URI.create("http://10.0.0.2:8080"),
                        URI.create("http://10.0.0.3:8080"));
        List<URI> two = r.replicas(b("user/42"), 2);
        assertThat(two).doesNotHaveDuplicates().hasSize(2);
        assertThat(r.replicas(b("user/42"), 3)).startsWith(two.toArray(URI[]::new)); // a prefix, as on the node
    }

    @Test
    void refusesAnotherVersionHashOrAMalformedLine() {
        assertThatThrownBy(() -> ClusterRing.parse(RING.replace("ringbase-ring 1", "ringbase-ring 2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ringbase-ring 1");
        assertThatThrownBy(() -> ClusterRing.parse(RING.replace("hash xxh64", "hash murmur3")))
                .hasMessageContaining("murmur3");
        assertThatThrownBy(() -> ClusterRing.parse(RING.replace("epoch 7", "epoch x")))
                .hasMessageContaining("line 2");
        assertThatThrownBy(() -> ClusterRing.parse(RING.replace("replication-factor 2", "replication-factor 4")))
                .hasMessageContaining("replication factor 4");
    }

    @Test
    void routesToTheFirstReplicaUpThenTheNextThenAnyNode() {
        Router router = new Router(List.of(URI.create("http://10.0.0.1:8080")), Routing.REPLICA, 0, 60_000_000_000L);
        byte[] key = b("k");
        assertThat(router.pick(key, 1)).isEqualTo(URI.create("http://10.0.0.1:8080")); // no ring yet: any node
        ClusterRing ring = ClusterRing.parse(RING);
        assertThat(router.offer(ring)).isTrue();
        List<URI> replicas = ring.replicas(key, 2);
        assertThat(router.pick(key, 1)).isEqualTo(replicas.get(0));
        assertThat(router.pick(key, 2)).isEqualTo(replicas.get(1)); // a retry: the next replica
        router.markDown(replicas.get(0));
        assertThat(router.pick(key, 1)).isEqualTo(replicas.get(1));
        router.markDown(replicas.get(1));
        assertThat(router.pick(key, 1)).isEqualTo(URI.create("http://10.0.0.1:8080")); // none up: the given node
        assertThat(router.offer(ClusterRing.parse(RING.replace("epoch 7", "epoch 6"))))
                .as("an older epoch")
                .isFalse();
        assertThat(router.ring()).isSameAs(ring);

        Router random = new Router(List.of(URI.create("http://10.0.0.1:8080")), Routing.RANDOM, 0, 1);
        random.offer(ring);
        assertThat(random.pick(key, 1)).isEqualTo(URI.create("http://10.0.0.1:8080"));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
