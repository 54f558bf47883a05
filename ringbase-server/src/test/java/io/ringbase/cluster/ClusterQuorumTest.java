package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.ring.Ring;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The public API of a 3-node cluster with every node up (one cluster for the whole class; the tests
 * use disjoint keys): the {@code ack}/{@code from} rules, where copies land, and that any node
 * coordinates any key.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterQuorumTest {

    @TempDir
    static Path tmp;

    LocalCluster c;

    @BeforeAll
    void start() throws Exception {
        c = new LocalCluster(tmp, 3);
    }

    @AfterAll
    void stop() throws Exception {
        c.close();
    }

    @ParameterizedTest(name = "{0} with {1} is 400")
    @CsvSource({
        "GET, &ack=0",
        "PUT, &ack=4",
        "DELETE, &from=4",
        "GET, &ack=3&from=2",
        "PUT, &ack=2&from=1",
        "DELETE, &from=0",
        "GET, &ack=-1",
        "PUT, &from=-3",
        "GET, &ack=two",
        "PUT, &from=",
    })
    void ackAndFromOutsideTheirRangeAre400(String method, String params) {
        LocalCluster.Reply r =
                c.send(0, method, "/v0/entity?id=bad-params" + params, method.equals("PUT") ? "v" : null);
        assertThat(r.status()).as("body: %s", r.body()).isEqualTo(400);
        assertThat(c.holders("bad-params"))
                .as("nothing may be written by a refused request")
                .isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"&ack=1&from=1", "&ack=3&from=3", "&from=1", "&ack=2&from=2", "&ack=3"})
    void ackAndFromWithinTheirRangeAreServed(String params) { // read ack + write ack > from: reads see writes
        String key = "good-params" + params.replace('&', '_').replace('=', '-');
        assertThat(c.put(1, key, "v", params).status()).isEqualTo(201);
        LocalCluster.Reply r = c.get(2, key, params);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("v");
        assertThat(c.delete(0, key, params).status()).isEqualTo(202);
        assertThat(c.get(1, key, params).status()).isEqualTo(404);
    }

    @Test
    void anAckOneWriteIsAnsweredAtOnceAndReachesEveryReplica() {
        // ack=1 of 3 with an ack=1 read need not see it at once (1 + 1 <= 3): the fastest replica may not
        // have it yet. It reaches all three all the same.
        assertThat(c.put(1, "ack-one", "v", "&ack=1").status()).isEqualTo(201);
        LocalCluster.await(
                Duration.ofSeconds(10),
                "3 copies of ack-one",
                () -> c.holders("ack-one").size() == 3);
        assertThat(c.get(2, "ack-one", "&ack=1").body()).isEqualTo("v");
    }

    @Test
    void defaultFromIsTheClusterSize() {
        assertThat(c.put(0, "default-from", "v").status()).isEqualTo(201);
        LocalCluster.await(
                Duration.ofSeconds(10),
                "3 copies of default-from",
                () -> c.holders("default-from").size() == 3);
    }

    @Test
    void aKeyWrittenThroughAnyNodeIsReadableThroughEveryNode() {
        for (int writer = 0; writer < 3; writer++) {
            String key = "any-node-" + writer;
            assertThat(c.put(writer, key, "from " + writer).status()).isEqualTo(201);
            for (int reader = 0; reader < 3; reader++) {
                LocalCluster.Reply r = c.get(reader, key);
                assertThat(r.status())
                        .as("%s written via %d, read via %d", key, writer, reader)
                        .isEqualTo(200);
                assertThat(r.body()).isEqualTo("from " + writer);
            }
        }
    }

    @ParameterizedTest(name = "from={0}")
    @ValueSource(ints = {1, 2, 3})
    void aWriteWithFromFStoresExactlyFCopiesOnTheKeysFirstFReplicas(int from) {
        Ring ring = c.node(0).coordinator().placement().current();
        for (int k = 0; k < 20; k++) {
            String key = "copies-" + from + "-" + k;
            // ack=from: every copy is in place when the answer comes
            assertThat(c.put(k % 3, key, "v", "&ack=" + from + "&from=" + from).status())
                    .isEqualTo(201);
            List<Integer> expected = ring.replicas(key.getBytes(StandardCharsets.UTF_8), from).stream()
                    .map(NodeId::index)
                    .sorted()
                    .toList();
            assertThat(c.holders(key)).as("engines holding %s", key).isEqualTo(expected);
        }
        // ack=1: the other copies follow in the background, and no more than from of them
        for (int k = 0; k < 20; k++) {
            String key = "copies-ack1-" + from + "-" + k;
            assertThat(c.put(k % 3, key, "v", "&ack=1&from=" + from).status()).isEqualTo(201);
            List<Integer> expected = ring.replicas(key.getBytes(StandardCharsets.UTF_8), from).stream()
                    .map(NodeId::index)
                    .sorted()
                    .toList();
            LocalCluster.await(
                    Duration.ofSeconds(10),
                    from + " copies of " + key,
                    () -> c.holders(key).equals(expected));
        }
        // deletes go to the same replicas: a tombstone on each, none elsewhere
        String key = "copies-" + from + "-0";
        assertThat(c.delete(1, key, "&ack=" + from + "&from=" + from).status()).isEqualTo(202);
        for (int i : c.holders(key)) {
            assertThat(c.stored(i, key).isTombstone()).as("node %d", i).isTrue();
        }
        assertThat(c.holders(key)).hasSize(from);
    }

    @Test
    void ringPlacementIsTheSameOnEveryNode() {
        byte[] key = "placement".getBytes(StandardCharsets.UTF_8);
        List<NodeId> first = c.node(0).coordinator().placement().current().replicas(key, 3);
        for (int i = 1; i < 3; i++) {
            assertThat(c.node(i).coordinator().placement().current().replicas(key, 3))
                    .isEqualTo(first);
        }
    }

    @Test
    void ttlWritesCarryTheSameExpiryToEveryReplica() {
        long before = System.currentTimeMillis();
        assertThat(c.put(2, "ttl-key", "short-lived", "&ttl=60").status()).isEqualTo(201);
        long after = System.currentTimeMillis();
        LocalCluster.await(
                Duration.ofSeconds(10),
                "3 copies of ttl-key",
                () -> c.holders("ttl-key").size() == 3);
        long expiry = c.stored(0, "ttl-key").expiresAtMs();
        assertThat(expiry).isBetween(before + 60_000, after + 60_000);
        for (int i = 1; i < 3; i++) {
            assertThat(c.stored(i, "ttl-key").expiresAtMs())
                    .as("expiry on node %d", i)
                    .isEqualTo(expiry);
        }
    }

    @Test
    void aTtlThatHasPassedReadsAs404OnEveryNode() {
        assertThat(c.put(0, "ttl-gone", "x", "&ttl=0.2").status()).isEqualTo(201);
        LocalCluster.await(
                Duration.ofSeconds(10),
                "ttl-gone to expire on every node",
                () -> c.get(0, "ttl-gone").status() == 404
                        && c.get(1, "ttl-gone").status() == 404
                        && c.get(2, "ttl-gone").status() == 404);
    }
}
