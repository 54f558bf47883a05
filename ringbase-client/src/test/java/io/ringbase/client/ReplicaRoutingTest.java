package io.ringbase.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routing by replica on 5 nodes with replication factor 3 (with 3 nodes every node holds every key and routing
 * cannot matter): the client takes the placement from {@code GET /v0/ring}, every point request lands on a
 * replica of its key, so each does at least one replica operation on its coordinator's own engine
 * ({@code ringbase_coordinator_replica_ops_total{replica="local"}}), and fewer remote ones than the same
 * requests sent to the nodes in turn; with a replica stopped, requests go on through the others.
 */
@IntegrationTest
@Timeout(120)
class ReplicaRoutingTest {

    private static final int NODES = 5;
    private static final int RF = 3;
    private static final int KEYS = 200;

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newHttpClient();

    /** Local and remote replica operations summed over the nodes' metrics. */
    private record Ops(long local, long remote) {
        Ops minus(Ops o) {
            return new Ops(local - o.local, remote - o.remote);
        }
    }

    @Test
    void replicaRoutingCoordinatesOnAReplicaAndSavesRemoteCalls() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            try (ServerSocket s = new ServerSocket(0)) {
                ports.add(s.getLocalPort());
            }
        }
        List<String> urls = ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
        List<Node> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                nodes.add(Node.start(new NodeConfig(
                        HttpServerConfig.defaults(ports.get(i)).withHost("127.0.0.1"),
                        LsmOptions.defaults(tmp.resolve("n" + i)),
                        Topology.parse(urls, urls.get(i), RF),
                        1000,
                        null,
                        HintOptions.defaults())));
            }
            String[] all = urls.toArray(String[]::new);
            try (RingbaseClient replica = RingbaseClient.builder(urls.get(0)).build();
                    RingbaseClient random =
                            RingbaseClient.builder(all).routing(Routing.RANDOM).build()) {
                assertThat(replica.routing()).isEqualTo(Routing.REPLICA);
                assertThat(replica.ringEpoch())
                        .as("placement fetched when built")
                        .isZero();
                assertThat(replica.replicasOf("k")).hasSize(RF).isSubsetOf(urls);
                assertThat(random.replicasOf("k")).isEmpty();
                Awaitility.await() // every node sees the others up
                        .atMost(Duration.ofSeconds(20))
                        .ignoreExceptions()
                        .until(() -> {
                            random.put("probe", b("p"));
                            return true;
                        });

                Ops byReplica = run(replica, "r", urls);
                Ops inTurn = run(random, "t", urls);
                System.out.printf(
                        "%d puts and %d gets on %d nodes, RF %d: replica routing %d local / %d remote replica ops,"
                                + " in turn %d / %d%n",
                        KEYS, KEYS, NODES, RF, byReplica.local, byReplica.remote, inTurn.local, inTurn.remote);
                // a put reads versions (this node first) and writes all RF replicas: 2 local ops; a get 1
                assertThat(byReplica.local)
                        .as("every request coordinated on a replica")
                        .isGreaterThanOrEqualTo(3L * KEYS);
                assertThat(inTurn.local)
                        .as("in turn, some requests land off their replicas")
                        .isLessThan(3L * KEYS);
                assertThat(byReplica.remote).as("fewer network round trips").isLessThan(inTurn.remote);

                nodes.get(2).close(); // a replica of some keys refuses connections: the next replica serves them
                for (int i = 0; i < 30; i++) {
                    replica.put("after" + i, b("v" + i));
                    assertThat(replica.get("after" + i)).hasValue(b("v" + i));
                }
            }
        } finally {
            for (Node n : nodes) {
                n.close();
            }
        }
    }

    /** {@link #KEYS} puts, then gets of them, through {@code client}; the replica operations they made. */
    private Ops run(RingbaseClient client, String prefix, List<String> urls) throws Exception {
        Ops before = ops(urls);
        for (int i = 0; i < KEYS; i++) {
            client.put(prefix + i, b("v" + i));
        }
        for (int i = 0; i < KEYS; i++) {
            assertThat(client.get(prefix + i)).hasValue(b("v" + i));
        }
        return ops(urls).minus(before);
    }

    private Ops ops(List<String> urls) throws Exception {
        long local = 0;
        long remote = 0;
        for (String url : urls) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            for (String line : r.body().split("\n")) {
                if (line.startsWith("ringbase_coordinator_replica_ops_total{replica=\"local\"}")) {
                    local += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                } else if (line.startsWith("ringbase_coordinator_replica_ops_total{replica=\"remote\"}")) {
                    remote += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        return new Ops(local, remote);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
