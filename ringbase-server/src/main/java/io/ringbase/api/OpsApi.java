package io.ringbase.api;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.storage.StorageEngine;
import java.nio.charset.StandardCharsets;

/**
 * Endpoints for load balancers, orchestrators and operators that read but change nothing:
 * {@code GET /health} (the process serves HTTP), {@code GET /ready} (the node can take reads and
 * writes now: its engine is open and writable and, in a cluster, enough nodes are reachable for the
 * default quorum), {@code GET /metrics} (Prometheus), {@code GET /v0/status} (JSON) and {@code GET /}
 * (the cluster's status page). Stateless and thread-safe; health and readiness are cheap enough to
 * run on the event loop, the rest runs on workers.
 */
final class OpsApi {

    static final String HEALTH = "/health";
    static final String READY = "/ready";
    static final String METRICS = "/metrics";
    static final String STATUS = "/v0/status";
    static final String PAGE = "/";

    private final StorageEngine engine;
    private final Coordinator coordinator;
    private final NodeReports reports;

    /**
     * @param coordinator the cluster's coordinator, or {@code null} on a single node
     * @param reports     the node's metrics and status, or {@code null} (then those paths are 404)
     */
    OpsApi(StorageEngine engine, Coordinator coordinator, NodeReports reports) {
        this.engine = engine;
        this.coordinator = coordinator != null && coordinator.topology().size() > 1 ? coordinator : null;
        this.reports = reports;
    }

    /** Whether {@code path} belongs to this API. */
    static boolean owns(String path) {
        return path.equals(HEALTH) || path.equals(READY) || path.equals(METRICS) || path.equals(STATUS)
                || path.equals(PAGE);
    }

    Outcome handle(HttpMethod method, String path) throws MethodNotAllowedException, NotFoundException {
        if (!method.equals(HttpMethod.GET)) {
            throw new MethodNotAllowedException(method.name(), "GET");
        }
        if (path.equals(HEALTH)) {
            return new Outcome.Probe(true, "ok");
        }
        if (!path.equals(READY) && reports == null) {
            throw new NotFoundException("no " + path + " on this server");
        }
        if (path.equals(METRICS)) {
            byte[] metrics = reports.metrics();
            if (metrics == null) {
                throw new NotFoundException("metrics are off on this node (--no-metrics)");
            }
            return new Outcome.Body(metrics, reports.metricsContentType());
        }
        if (path.equals(STATUS)) {
            return new Outcome.Body((reports.statusJson() + "\n").getBytes(StandardCharsets.UTF_8), "application/json");
        }
        if (path.equals(PAGE)) {
            return new Outcome.Body(reports.statusPage().getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8");
        }
        String reason = notReadyReason();
        return new Outcome.Probe(reason == null, reason == null ? "ready" : "not ready: " + reason);
    }

    /**
     * Why the node cannot take reads and writes, or {@code null} if it can: the engine's own reason
     * ({@link StorageEngine#unwritableReason()}), or in a cluster fewer nodes up (this one included,
     * by the failure detector's belief) than a default-quorum request needs.
     */
    String notReadyReason() {
        String engineReason = engine.unwritableReason();
        if (engineReason != null) {
            return engineReason;
        }
        if (coordinator != null) {
            int n = coordinator.topology().size();
            int needed = Topology.quorum(n);
            int up = coordinator.upReplicas().size();
            if (up < needed) {
                return up + " of " + n + " nodes reachable, " + needed + " needed for the default quorum";
            }
        }
        return null;
    }
}
