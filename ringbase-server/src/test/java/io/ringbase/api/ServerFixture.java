package io.ringbase.api;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.node.NodeRoutes;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A real server on a loopback ephemeral port plus an HTTP/1.1 client, for black-box tests. */
final class ServerFixture implements AutoCloseable {

    /** The membership digest of the bare server of {@link NodeRoutes#standalone}: a node alone. */
    static final String MEMBERSHIP = Membership.of(Membership.DEFAULT_NAME, Topology.single("localhost", 1))
            .digestHex();

    final RingbaseHttpServer server;
    final int port;
    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    ServerFixture(StorageEngine engine) {
        this(HttpServerConfig.defaults(0).withHost("127.0.0.1"), engine);
    }

    ServerFixture(HttpServerConfig config, StorageEngine engine) {
        this(config, engine, TimeSource.SYSTEM);
    }

    /** A server whose TTLs and expiries follow {@code time}. */
    ServerFixture(HttpServerConfig config, StorageEngine engine, TimeSource time) {
        server = bare(config, engine, time);
        port = server.start();
    }

    /** A server alone on {@code engine}: the public and node-to-node APIs, requests counted, no reports. */
    static RingbaseHttpServer bare(HttpServerConfig config, StorageEngine engine) {
        return bare(config, engine, TimeSource.SYSTEM);
    }

    private static RingbaseHttpServer bare(HttpServerConfig config, StorageEngine engine, TimeSource time) {
        HttpApi api = NodeRoutes.standalone(engine, new HybridLogicalClock(), time, config.maxBodyBytes());
        return new RingbaseHttpServer(config, api, api.newRequestMetrics(), false);
    }

    /** Form-encodes a key as a query value (space as '+'). */
    static String enc(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }

    HttpResponse<byte[]> send(String method, String pathAndQuery, byte[] body)
            throws IOException, InterruptedException {
        return send(method, pathAndQuery, body, new String[0]);
    }

    /** A request with extra header fields {@code headers}: name, value, name, value, ... */
    HttpResponse<byte[]> send(String method, String pathAndQuery, byte[] body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.BodyPublisher publisher =
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .method(method, publisher);
        if (headers.length > 0) {
            request.headers(headers);
        }
        if (pathAndQuery.startsWith(InternalProtocol.PREFIX)) { // as a peer sends it
            request.header(InternalProtocol.MEMBERSHIP, MEMBERSHIP);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> get(String pathAndQuery) throws IOException, InterruptedException {
        return send("GET", pathAndQuery, null);
    }

    HttpResponse<byte[]> put(String pathAndQuery, byte[] body) throws IOException, InterruptedException {
        return send("PUT", pathAndQuery, body);
    }

    HttpResponse<byte[]> delete(String pathAndQuery) throws IOException, InterruptedException {
        return send("DELETE", pathAndQuery, null);
    }

    @Override
    public void close() {
        server.close();
        client.close();
    }
}
