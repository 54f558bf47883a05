package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With a cluster secret the internal API takes only HMAC-signed requests; the cluster still works. */
@IntegrationTest
class ClusterAuthTest {

    static final byte[] SECRET = "the-shared-cluster-secret-0123456".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    static NodeConfig withSecret(NodeConfig c) {
        return new NodeConfig(c.http(), c.storage(), c.topology(), c.replicaTimeoutMs(), SECRET, c.hints());
    }

    int internal(LocalCluster c, int node, String method, String uri, byte[] body, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(c.url(node) + uri))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                // the cluster's membership, as a peer sends it: only the signature differs between the calls
                .header(
                        InternalProtocol.MEMBERSHIP,
                        c.node(node).membership().orElseThrow().membership().digestHex());
        if (auth != null) {
            b.header(RequestSigner.HEADER, auth);
        }
        return c.http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void internalRequestsWithoutAValidSignatureAre403AndTheClusterStillWorks() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3, ClusterAuthTest::withSecret)) {
            assertThat(c.put(0, "k", "v", "&ack=3").status()).isEqualTo(201);
            for (int i = 0; i < 3; i++) {
                assertThat(c.get(i, "k", "&ack=3").body()).isEqualTo("v");
            }
            assertThat(c.delete(1, "k", "&ack=3").status()).isEqualTo(202);
            assertThat(c.get(2, "k", "&ack=3").status()).isEqualTo(404);

            byte[] none = new byte[0];
            byte[] forged = InternalProtocol.encode(List.of(Entry.value(
                    "forged".getBytes(StandardCharsets.UTF_8),
                    Long.MAX_VALUE >>> 1,
                    "x".getBytes(StandardCharsets.UTF_8))));
            String put = InternalProtocol.ENTRY;
            String get = InternalProtocol.ENTRY + "?id=" + InternalProtocol.hex("k".getBytes(StandardCharsets.UTF_8));
            long now = System.currentTimeMillis();
            RequestSigner wrong =
                    new RequestSigner("not-the-cluster-secret-012345678".getBytes(StandardCharsets.UTF_8));
            RequestSigner right = new RequestSigner(SECRET);

            assertThat(internal(c, 0, "GET", InternalProtocol.PING, none, null)).isEqualTo(403);
            assertThat(internal(c, 0, "GET", get, none, null)).isEqualTo(403);
            assertThat(internal(c, 0, "PUT", put, forged, null)).isEqualTo(403);
            assertThat(internal(c, 1, "PUT", put, forged, "garbage")).isEqualTo(403);
            assertThat(internal(c, 1, "PUT", put, forged, wrong.sign("PUT", put, forged, now)))
                    .isEqualTo(403);
            assertThat(internal(c, 2, "PUT", put, forged, right.sign("GET", put, forged, now)))
                    .as("signed for another method")
                    .isEqualTo(403);
            assertThat(internal(c, 2, "PUT", put, forged, right.sign("PUT", put, none, now)))
                    .as("signed for another body")
                    .isEqualTo(403);
            assertThat(internal(
                            c,
                            2,
                            "PUT",
                            put,
                            forged,
                            right.sign("PUT", put, forged, now - RequestSigner.MAX_SKEW_MS - 60_000)))
                    .as("expired")
                    .isEqualTo(403);
            assertThat(c.holders("forged")).as("no refused write may land").isEmpty();

            // the same requests correctly signed pass, so the refusals above are about the signature
            assertThat(internal(
                            c,
                            0,
                            "GET",
                            InternalProtocol.PING,
                            none,
                            right.sign("GET", InternalProtocol.PING, none, now)))
                    .isEqualTo(200);
            assertThat(internal(c, 0, "GET", get, none, right.sign("GET", get, none, now)))
                    .isEqualTo(200);

            // the public API needs no signature
            assertThat(c.put(2, "public", "ok").status()).isEqualTo(201);
            assertThat(c.get(0, "public").body()).isEqualTo("ok");
        }
    }

    @Test
    void withoutASecretInternalRequestsNeedNoSignature() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            assertThat(internal(c, 0, "GET", InternalProtocol.PING, new byte[0], null))
                    .isEqualTo(200);
        }
    }

    @Test
    void nodesWithDifferentSecretsCannotReachQuorumTogether() throws Exception {
        try (LocalCluster c = LocalCluster.unsettled(
                tmp,
                3,
                config -> config.topology().self().index() == 2
                        ? new NodeConfig(
                                config.http(),
                                config.storage(),
                                config.topology(),
                                config.replicaTimeoutMs(),
                                "a-different-secret-on-node-2-xyz".getBytes(StandardCharsets.UTF_8),
                                config.hints())
                        : withSecret(config))) {
            // unsettled: right after the start node 0 may not have a connection to node 1 yet (seen once in CI
            // as a 504 within 0.2 s), so the quorum of the two nodes that share a secret is awaited
            LocalCluster.await(
                    java.time.Duration.ofSeconds(15),
                    "nodes 0 and 1 agree on a write",
                    () -> c.put(0, "k", "v").status() == 201);
            LocalCluster.Reply r = c.put(0, "k", "v", "&ack=3");
            assertThat(r.status()).isEqualTo(504);
            assertThat(c.holders("k")).doesNotContain(2);
        }
    }
}
