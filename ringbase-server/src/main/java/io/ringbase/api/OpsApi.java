package io.ringbase.api;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.api.wire.Request;
import io.ringbase.kv.KeyValueService;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Endpoints for load balancers, orchestrators and operators that read but change nothing:
 * {@code GET /health} (the process serves HTTP), {@code GET /ready} (the node can take reads and
 * writes now: {@link KeyValueService#notReadyReason()}), {@code GET /metrics} (Prometheus),
 * {@code GET /v0/status} (JSON), {@code GET /} (the cluster's status page) and {@code GET /v0/openapi.json}
 * (the OpenAPI 3.1 description of the public API, a resource beside this class). Stateless and thread-safe;
 * health and readiness are cheap enough to run on the I/O thread, the rest runs on workers.
 */
final class OpsApi {

    static final String HEALTH = "/health";
    static final String READY = "/ready";
    static final String METRICS = "/metrics";
    static final String STATUS = "/v0/status";
    static final String PAGE = "/";
    static final String OPENAPI = "/v0/openapi.json";

    /** The OpenAPI description, read once: the same bytes for every request. */
    private static final byte[] OPENAPI_JSON = openApi();

    private final KeyValueService kv;

    /**
     * @param kv      the node's key-value service, which knows whether requests can be served
     * @param reports the node's metrics and status ({@link NodeReports#NONE} for a bare server)
     */
    OpsApi(KeyValueService kv, NodeReports reports) {
        this.kv = kv;
        this.metrics = getOnly(() -> new Outcome.Body(reports.metrics(), reports.metricsContentType()));
        this.status = getOnly(() ->
                new Outcome.Body((reports.statusJson() + "\n").getBytes(StandardCharsets.UTF_8), "application/json"));
        this.page = getOnly(() ->
                new Outcome.Body(reports.statusPage().getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8"));
    }

    /** {@link #HEALTH}: the process serves HTTP. */
    final Route health = new Inline() {
        @Override
        Outcome get() {
            return new Outcome.Probe(true, "ok");
        }
    };

    /** {@link #READY}: the node can take reads and writes now. */
    final Route ready = new Inline() {
        @Override
        Outcome get() {
            String reason = kv.notReadyReason();
            return new Outcome.Probe(reason == null, reason == null ? "ready" : "not ready: " + reason);
        }
    };

    /** {@link #METRICS}: every metric in the Prometheus text format. */
    final Route metrics;

    /** {@link #STATUS}: this node's status as JSON. */
    final Route status;

    /** {@link #PAGE}: the cluster's status page. */
    final Route page;

    /** {@link #OPENAPI}: the OpenAPI 3.1 description of the public API. */
    final Route openapi = getOnly(() -> new Outcome.Body(OPENAPI_JSON, "application/json"));

    private static byte[] openApi() {
        try (InputStream in = OpsApi.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing beside " + OpsApi.class.getName());
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read openapi.json beside " + OpsApi.class.getName(), e);
        }
    }

    /** A report made on a worker. */
    private interface Report {
        Outcome make() throws NotFoundException;
    }

    private static Route getOnly(Report report) {
        return (request, path, query, mayWait) -> {
            requireGet(request);
            return report.make();
        };
    }

    /** A probe cheap enough for the I/O thread: a load balancer's check should not wait behind a full queue. */
    private abstract static class Inline implements Route {
        abstract Outcome get();

        @Override
        public boolean runsInline(Request request) {
            return true;
        }

        @Override
        public Outcome handle(Request request, String path, QueryString query, boolean mayWait)
                throws MethodNotAllowedException {
            requireGet(request);
            return get();
        }
    }

    private static void requireGet(Request request) throws MethodNotAllowedException {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET)) {
            throw new MethodNotAllowedException(method.name(), "GET");
        }
    }
}
