package io.ringbase.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NodeConfigs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link RingbaseClient} against real nodes: a node alone, and a 3-node cluster losing a node. */
@IntegrationTest
@Timeout(90)
class RingbaseClientTest {

    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void pointRequestsTtlAndScansRoundTripAnyKeyAndValue() throws Exception {
        NodeConfig config = NodeConfigs.alone(LsmOptions.defaults(tmp.resolve("data")));
        try (Node node = Node.start(config);
                RingbaseClient client = RingbaseClient.builder("http://127.0.0.1:" + node.port())
                        .build()) {
            TreeMap<String, byte[]> model = new TreeMap<>();
            List<String> odd = List.of("a b", "a+b", "user/42", "ключ", "x&y=z?#", "line\nbreak");
            for (int i = 0; i < odd.size(); i++) {
                byte[] value = {(byte) i, '\n', 0, (byte) 0xff, '"', '}'};
                client.put(odd.get(i), value);
                model.put(odd.get(i), value);
            }
            for (int i = 0; i < 50; i++) {
                client.putAsync("k" + i, b("v" + i), null).get();
                model.put("k" + i, b("v" + i));
            }
            for (var e : model.entrySet()) {
                assertThat(client.get(e.getKey())).as(e.getKey()).hasValue(e.getValue());
            }
            client.delete("k7");
            model.remove("k7");
            assertThat(client.get("k7")).isEmpty();
            assertThat(client.getAsync("never").get()).isEmpty();

            try (Stream<KeyValue> all = client.scan("\u0001", null)) {
                List<KeyValue> got = all.toList();
                assertThat(got).extracting(KeyValue::keyString).containsExactlyElementsOf(model.keySet());
                for (KeyValue kv : got) {
                    assertThat(kv.value()).isEqualTo(model.get(kv.keyString()));
                }
            }
            try (Stream<KeyValue> some = client.scan("k1", "k2")) {
                assertThat(some.map(KeyValue::keyString))
                        .containsExactly("k1", "k10", "k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18", "k19");
            }

            client.put("short", b("x"), Duration.ofMillis(300));
            assertThat(client.get("short")).isPresent();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> client.get("short").isEmpty());

            client.put("typed", b("{}"), "application/json; charset=utf-8");
            assertThat(client.getWithType("typed")).hasValueSatisfying(v -> {
                assertThat(v.value()).isEqualTo(b("{}"));
                assertThat(v.contentType()).isEqualTo("application/json; charset=utf-8");
            });
            assertThat(client.getWithType("k1").orElseThrow().contentType()).isEqualTo(StoredValue.DEFAULT_TYPE);
            assertThat(client.get("typed")).hasValue(b("{}"));
            assertThatThrownBy(() -> client.put("typed", b("x"), "not a type"))
                    .isInstanceOfSatisfying(
                            RingbaseException.class, e -> assertThat(e.status()).isEqualTo(400));

            String huge = "k".repeat(70_000);
            assertThatThrownBy(() -> client.put(huge, b("v")))
                    .isInstanceOfSatisfying(
                            RingbaseException.class, e -> assertThat(e.status()).isEqualTo(400));
            assertThatThrownBy(() -> client.get("")).isInstanceOf(IllegalArgumentException.class);
            assertThat(client.status()).contains("\"node\"");
        }
    }

    @Test
    void requestsGoOnThroughTheOtherNodesWhenOneIsDown() throws Exception {
        List<Integer> ports = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
                ports.add(s.getLocalPort());
            }
        }
        List<String> urls = ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
        List<Node> nodes = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(Node.start(new NodeConfig(
                        HttpServerConfig.defaults(ports.get(i)).withHost("127.0.0.1"),
                        LsmOptions.defaults(tmp.resolve("n" + i)),
                        Topology.parse(urls, urls.get(i)),
                        1000,
                        null,
                        HintOptions.defaults())));
            }
            try (RingbaseClient client = RingbaseClient.builder(urls.toArray(String[]::new))
                    .downFor(Duration.ofSeconds(30))
                    .build()) {
                org.awaitility.Awaitility.await() // every node sees the others up
                        .atMost(Duration.ofSeconds(20))
                        .ignoreExceptions()
                        .until(() -> {
                            client.put("probe", b("p"));
                            return true;
                        });
                for (int i = 0; i < 30; i++) {
                    client.put("k" + i, b("v" + i));
                }
                nodes.get(1).close();
                for (int i = 0; i < 30; i++) { // every third pick is the stopped node: it is skipped
                    client.put("n" + i, b("w" + i));
                }
                for (int i = 0; i < 30; i++) {
                    assertThat(client.get("k" + i)).hasValue(b("v" + i));
                    assertThat(client.get("n" + i)).hasValue(b("w" + i));
                }
                try (RingbaseClient once = RingbaseClient.builder(urls.get(1)).build()) {
                    assertThatThrownBy(() -> once.put("x", b("x"))) // the node alone is down: no other to try
                            .isInstanceOfSatisfying(
                                    RingbaseException.class,
                                    e -> assertThat(e.status()).isZero());
                }
            }
        } finally {
            for (Node n : nodes) {
                n.close();
            }
        }
    }

    @Test
    void aNodeListIsRequiredAndChecked() {
        assertThatThrownBy(RingbaseClient::builder).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RingbaseClient.builder("localhost:8080")).isInstanceOf(IllegalArgumentException.class);
        assertThat(RingbaseClient.entry("{\"key\":\"YQ==\",\"value\":\"Cg==\"}").value())
                .containsExactly('\n');
    }
}
