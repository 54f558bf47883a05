package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NodeConfigs;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v0/openapi.json} against the node that serves it: every operation it describes, sent with its
 * parameters' examples, gets one of the statuses it documents, and every public endpoint the node routes is
 * described.
 */
@IntegrationTest
@Timeout(60)
class OpenApiContractTest {

    private static final List<String> METHODS = List.of("get", "put", "delete", "post");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void everyDescribedOperationAnswersADocumentedStatusAndEveryEndpointIsDescribed() throws Exception {
        NodeConfig config = NodeConfigs.alone(LsmOptions.defaults(tmp.resolve("data")));
        try (Node node = Node.start(config)) {
            String base = "http://127.0.0.1:" + node.port();
            HttpResponse<String> served = send(base + "/v0/openapi.json", "GET", null);
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(served.headers().firstValue("content-type")).hasValue("application/json");
            JsonNode doc = JSON.readTree(served.body());
            assertThat(doc.path("openapi").asText()).startsWith("3.1");

            List<String> mismatches = new ArrayList<>();
            Set<String> described = new TreeSet<>();
            int operations = 0;
            for (Map.Entry<String, JsonNode> path : doc.path("paths").properties()) {
                described.add(path.getValue().path("x-ringbase-endpoint").asText());
                for (String method : METHODS) {
                    JsonNode op = path.getValue().path(method);
                    if (op.isMissingNode()) {
                        continue;
                    }
                    operations++;
                    String url = base + pathWithExamples(path.getKey(), op) + query(doc, op);
                    JsonNode example = op.path("requestBody").path("content").path("application/octet-stream");
                    HttpResponse<String> r = send(
                            url,
                            method.toUpperCase(java.util.Locale.ROOT),
                            example.path("example").textValue());
                    if (!op.path("responses").has(Integer.toString(r.statusCode()))) {
                        mismatches.add(method + " " + url + " answered " + r.statusCode() + " "
                                + r.body().strip() + ", documented " + fieldNames(op.path("responses")));
                    }
                }
            }
            assertThat(operations).isGreaterThan(15);
            assertThat(mismatches).isEmpty();

            List<String> routed = new ArrayList<>(
                    NodeRoutes.standalone(new InMemoryEngine(), new HybridLogicalClock(), TimeSource.SYSTEM, 1024)
                            .routes()
                            .endpoints());
            routed.removeIf(e -> e.startsWith("internal_") || e.equals("other"));
            assertThat(described).as("endpoints described").containsAll(routed);
        }
    }

    /** {@code template} with each {@code {name}} replaced by the example of {@code op}'s path parameter. */
    private static String pathWithExamples(String template, JsonNode op) {
        String path = template;
        for (JsonNode p : op.path("parameters")) {
            if (p.path("in").asText().equals("path")) {
                path = path.replace(
                        "{" + p.path("name").asText() + "}",
                        URLEncoder.encode(p.path("example").asText(), StandardCharsets.UTF_8));
            }
        }
        return path;
    }

    /** The query string of {@code op}'s parameters that have an example, {@code $ref}s resolved. */
    private static String query(JsonNode doc, JsonNode op) {
        StringBuilder q = new StringBuilder();
        for (JsonNode p : op.path("parameters")) {
            JsonNode param = p;
            if (p.has("$ref")) {
                String name = p.path("$ref").asText().substring("#/components/parameters/".length());
                param = doc.path("components").path("parameters").path(name);
            }
            JsonNode example = param.path("example");
            if (!param.path("in").asText().equals("query") || example.isMissingNode()) {
                continue;
            }
            q.append(q.isEmpty() ? '?' : '&')
                    .append(param.path("name").asText())
                    .append('=')
                    .append(URLEncoder.encode(example.asText(), StandardCharsets.UTF_8));
        }
        return q.toString();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private HttpResponse<String> send(String url, String method, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
