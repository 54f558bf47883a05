package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ringbase.auth.ClientTokens;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.node.NodeRoutes;
import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * With a token file, every route of the node's {@link RouteTable} (walked from the table, not listed here)
 * answers 401 without a token or with an unknown one, 403 with a token that lacks the permission, and
 * neither with the right one; probes and node-to-node routes stay open. No token reaches a log line.
 */
@IntegrationTest
class ClientTokenRoutesTest {

    static final String READER = "reader-token-0123456789";
    static final String WRITER = "writer-token-0123456789";
    static final String ADMIN = "admin-token-01234567890";
    static final String METRICS = "metrics-token-012345678";
    static final String SCOPED = "scoped-token-012345678";
    static final String UNKNOWN = "unknown-token-01234567";
    static final List<String> ALL = List.of(READER, WRITER, ADMIN, METRICS, SCOPED, UNKNOWN);

    static final String FILE = """
            reader  %s  read
            writer  %s  write
            admin   %s  admin
            metrics %s  metrics
            scoped  %s  read,write  user%%2F
            """.formatted(READER, WRITER, ADMIN, METRICS, SCOPED);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Logger ringbase = (Logger) LoggerFactory.getLogger("io.ringbase");
    private @Nullable Level ringbaseLevel;
    private HttpApi api;
    private RingbaseHttpServer server;
    private int port;

    @BeforeEach
    void start() throws Exception {
        ringbaseLevel = ringbase.getLevel();
        ringbase.setLevel(Level.DEBUG); // every line the node could log, access log included
        logs.start();
        root.addAppender(logs);
        ClientTokens tokens = ClientTokens.parse(FILE);
        HttpServerConfig config = HttpServerConfig.defaults(0).withHost("127.0.0.1");
        api = NodeRoutes.standalone(
                new InMemoryEngine(), new HybridLogicalClock(), TimeSource.SYSTEM, config.maxBodyBytes(), () -> tokens);
        server = new RingbaseHttpServer(config, api, api.newRequestMetrics(), true);
        port = server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        client.close();
        root.detachAppender(logs);
        logs.stop();
        ringbase.setLevel(ringbaseLevel);
    }

    /** What a walk sends to one entry: a target, the token it needs, and one that lacks it. */
    private record Probe(
            String method,
            String target,
            @Nullable String right,
            @Nullable String lacking) {}

    private static Probe probe(RouteTable.Entry entry) {
        String path = entry.pathString();
        return switch (entry.access()) {
            case KEY -> new Probe("GET", path + "?id=k", READER, WRITER);
            case RANGE -> new Probe("GET", path + "?start=a", READER, WRITER);
            case READ -> new Probe("GET", path, SCOPED, WRITER); // any prefix: the ring shows no key
            case METRICS -> new Probe("GET", path, METRICS, READER);
            case ADMIN -> new Probe("GET", entry.prefix() ? path + "repair" : path, ADMIN, METRICS);
            case TOKEN -> new Probe("GET", path.isEmpty() ? "/no/such/path" : path, READER, null);
            case OPEN, NODE -> new Probe("GET", entry.prefix() ? path + "ping" : path, null, null);
        };
    }

    @Test
    void everyRouteRefusesMissingUnknownAndInsufficientTokens() throws Exception {
        List<RouteTable.Entry> entries = new ArrayList<>(api.routes().entries());
        entries.add(api.routes().unknown());
        assertThat(entries).extracting(RouteTable.Entry::access).contains(Access.values());
        for (RouteTable.Entry entry : entries) {
            Probe p = probe(entry);
            String what = entry.access() + " " + p.method() + " " + p.target();
            if (p.right() == null) { // open: a probe, or node-to-node (the cluster secret's HMAC guards it)
                HttpResponse<String> none = send(p.method(), p.target(), null);
                assertThat(none.statusCode()).as(what).isNotEqualTo(401);
                assertThat(none.body()).as(what).doesNotStartWith("token ");
                continue;
            }
            HttpResponse<String> none = send(p.method(), p.target(), null);
            assertThat(none.statusCode()).as(what + " without a token").isEqualTo(401);
            assertThat(none.headers().firstValue("www-authenticate")).as(what).hasValue("Bearer realm=\"ringbase\"");
            HttpResponse<String> unknown = send(p.method(), p.target(), UNKNOWN);
            assertThat(unknown.statusCode()).as(what + " with an unknown token").isEqualTo(401);
            assertThat(unknown.headers().firstValue("www-authenticate").orElseThrow())
                    .as(what)
                    .contains("error=\"invalid_token\"");
            if (p.lacking() != null) {
                HttpResponse<String> lacking = send(p.method(), p.target(), p.lacking());
                assertThat(lacking.statusCode())
                        .as(what + " with a token lacking the permission")
                        .isEqualTo(403);
            }
            HttpResponse<String> right = send(p.method(), p.target(), p.right());
            assertThat(right.statusCode()).as(what + " with the right token").isNotIn(401, 403);
        }
    }

    @Test
    void writesNeedWriteAndReadsNeedRead() throws Exception {
        assertThat(send("PUT", "/v0/entity?id=k", READER, "v").statusCode()).isEqualTo(403);
        assertThat(send("DELETE", "/v0/entity?id=k", READER).statusCode()).isEqualTo(403);
        assertThat(send("PUT", "/v0/entity?id=k", WRITER, "v").statusCode()).isEqualTo(201);
        assertThat(send("GET", "/v0/entity?id=k", WRITER).statusCode()).isEqualTo(403);
        HttpResponse<String> read = send("GET", "/v0/entity?id=k", READER);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("v");
        assertThat(send("DELETE", "/v0/entity?id=k", WRITER).statusCode()).isEqualTo(202);
        assertThat(send("POST", "/v0/admin/flush", METRICS).statusCode()).isEqualTo(403);
        assertThat(send("POST", "/v0/admin/flush", ADMIN).statusCode()).isNotIn(401, 403);
        assertThat(send("GET", "/metrics", ADMIN).statusCode()).isNotIn(401, 403); // admin sees metrics too
    }

    @Test
    void aPrefixTokenReachesOnlyKeysAndRangesUnderItsPrefix() throws Exception {
        assertThat(send("PUT", "/v0/entity?id=user%2F1", SCOPED, "a").statusCode())
                .isEqualTo(201);
        assertThat(send("GET", "/v0/entity?id=user%2F1", SCOPED).statusCode()).isEqualTo(200);
        HttpResponse<String> outside = send("PUT", "/v0/entity?id=admin%2F1", SCOPED, "a");
        assertThat(outside.statusCode()).isEqualTo(403);
        assertThat(outside.body()).contains("token 'scoped'").doesNotContain(SCOPED);
        assertThat(send("GET", "/v0/entity?id=user", SCOPED).statusCode()).isEqualTo(403);
        assertThat(send("GET", "/v0/entities?start=user%2F&end=user0", SCOPED).statusCode())
                .isEqualTo(200);
        assertThat(send("GET", "/v0/entities?start=user%2F", SCOPED).statusCode())
                .isEqualTo(403);
        assertThat(send("GET", "/v0/entities?start=user%2F&end=zzz", SCOPED).statusCode())
                .isEqualTo(403);
        assertThat(send("GET", "/v0/entities?start=a&end=user%2Fz", SCOPED).statusCode())
                .isEqualTo(403);
    }

    @Test
    void noTokenAppearsInAnyLogLine() throws Exception {
        for (String token : ALL) {
            send("GET", "/v0/entity?id=k", token);
            send("PUT", "/v0/entity?id=k", token, "v");
            send("GET", "/v0/entities?start=a", token);
            send("POST", "/v0/admin/flush", token);
            send("GET", "/metrics", token);
            send("GET", "/no/such/path", token);
        }
        List<String> lines =
                logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).as("the access log wrote lines").anyMatch(l -> l.contains("/v0/entity?id=k"));
        for (String token : ALL) {
            assertThat(lines).noneMatch(l -> l.contains(token));
        }
    }

    private HttpResponse<String> send(String method, String target, @Nullable String token) throws Exception {
        return send(method, target, token, null);
    }

    private HttpResponse<String> send(String method, String target, @Nullable String token, @Nullable String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + target))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }
}
