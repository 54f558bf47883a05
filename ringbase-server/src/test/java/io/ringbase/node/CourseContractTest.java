package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-node contract of the highload-dht course Ringbase grew from, as its test suite states it
 * ({@code SingleNodeTest}), checked against a real node over HTTP: an empty or absent {@code id} and an
 * unknown path are 400, an absent key 404, a delete of an absent key 202, a PUT 201 (an empty value
 * too) and its value read back exactly, the last PUT wins, a delete hides the key, and a node started
 * on a fresh directory knows nothing of a previous one's keys.
 */
@IntegrationTest
@Timeout(120)
class CourseContractTest {

    @TempDir
    Path tmp;

    private final Random random = new Random(20261127);
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Node node;
    private int generation;

    @BeforeEach
    void start() throws Exception {
        node = startNode();
    }

    @AfterEach
    void stop() throws Exception {
        node.close();
        http.close();
    }

    private Node startNode() throws Exception {
        generation++;
        HttpServerConfig config = HttpServerConfig.defaults(0).withHost("127.0.0.1");
        Topology alone = Topology.single("127.0.0.1", 1);
        return Node.start(new NodeConfig(
                config,
                LsmOptions.defaults(tmp.resolve("data-" + generation)),
                alone,
                1000,
                null,
                HintOptions.defaults()));
    }

    private HttpResponse<byte[]> send(String method, String target, byte[] body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + target))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private int get(String key) throws Exception {
        return send("GET", "/v0/entity?id=" + key, null).statusCode();
    }

    private byte[] value(String key) throws Exception {
        HttpResponse<byte[]> r = send("GET", "/v0/entity?id=" + key, null);
        assertThat(r.statusCode()).as("GET %s", key).isEqualTo(200);
        return r.body();
    }

    private int put(String key, byte[] value) throws Exception {
        return send("PUT", "/v0/entity?id=" + key, value).statusCode();
    }

    private int delete(String key) throws Exception {
        return send("DELETE", "/v0/entity?id=" + key, null).statusCode();
    }

    private String randomKey() {
        return "k" + HexFormat.of().toHexDigits(random.nextLong());
    }

    private byte[] randomValue() {
        byte[] v = new byte[1 + random.nextInt(1024)];
        random.nextBytes(v);
        return v;
    }

    @Test
    void anEmptyKeyIsABadRequest() throws Exception {
        assertThat(get("")).isEqualTo(400);
        assertThat(delete("")).isEqualTo(400);
        assertThat(put("", new byte[] {0})).isEqualTo(400);
    }

    @Test
    void anAbsentIdIsABadRequest() throws Exception {
        assertThat(send("GET", "/v0/entity", null).statusCode()).isEqualTo(400);
    }

    @Test
    void anUnknownPathIsABadRequest() throws Exception {
        assertThat(send("GET", "/abracadabra", null).statusCode()).isEqualTo(400);
    }

    @Test
    void anAbsentKeyIs404AndItsDeleteIsAccepted() throws Exception {
        assertThat(get("absent")).isEqualTo(404);
        assertThat(delete("absent")).isEqualTo(202);
    }

    @Test
    void aValueAndAnEmptyValueReadBackExactly() throws Exception {
        String key = randomKey();
        byte[] v = randomValue();
        assertThat(put(key, v)).isEqualTo(201);
        assertThat(value(key)).isEqualTo(v);

        String empty = randomKey();
        assertThat(put(empty, new byte[0])).isEqualTo(201);
        assertThat(value(empty)).isEmpty();
    }

    @Test
    void twoKeysLiveAndDieApart() throws Exception {
        String k1 = randomKey();
        String k2 = randomKey();
        byte[] v1 = randomValue();
        byte[] v2 = randomValue();
        assertThat(put(k1, v1)).isEqualTo(201);
        assertThat(value(k1)).isEqualTo(v1);
        assertThat(put(k2, v2)).isEqualTo(201);
        assertThat(value(k1)).isEqualTo(v1);
        assertThat(value(k2)).isEqualTo(v2);
        assertThat(delete(k1)).isEqualTo(202);
        assertThat(get(k1)).isEqualTo(404);
        assertThat(value(k2)).isEqualTo(v2);
        assertThat(delete(k2)).isEqualTo(202);
        assertThat(get(k2)).isEqualTo(404);
    }

    @Test
    void theLastPutWinsAnEmptyValueIncluded() throws Exception {
        String key = randomKey();
        assertThat(put(key, randomValue())).isEqualTo(201);
        byte[] second = randomValue();
        assertThat(put(key, second)).isEqualTo(201);
        assertThat(value(key)).isEqualTo(second);
        assertThat(put(key, new byte[0])).isEqualTo(201);
        assertThat(value(key)).isEmpty();
    }

    @Test
    void aNodeOnAFreshDirectoryKnowsNoOldKey() throws Exception {
        String key = randomKey();
        assertThat(put(key, randomValue())).isEqualTo(201);
        node.close();
        node = startNode();
        assertThat(get(key)).isEqualTo(404);
    }

    @RepeatedTest(20)
    void aDeletedKeyIsGone() throws Exception {
        String key = randomKey();
        assertThat(put(key, randomValue())).isEqualTo(201);
        assertThat(delete(key)).isEqualTo(202);
        assertThat(get(key)).isEqualTo(404);
    }
}
