package io.ringbase.http;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.storage.StorageEngine;

/**
 * Endpoints for load balancers, orchestrators and operators that read but change nothing:
 * {@code GET /health} (the process serves HTTP) and {@code GET /ready} (the node can take reads and
 * writes now: its engine is open and writable and, in a cluster, enough nodes are reachable for the
 * default quorum). Stateless and thread-safe; cheap enough to run on the event loop.
 */
final class OpsApi {

    static final String HEALTH = "/health";
    static final String READY = "/ready";

    private final StorageEngine engine;
    private final Coordinator coordinator;

    /** @param coordinator the cluster's coordinator, or {@code null} on a single node */
    OpsApi(StorageEngine engine, Coordinator coordinator) {
        this.engine = engine;
        this.coordinator = coordinator != null && coordinator.topology().size() > 1 ? coordinator : null;
    }

    /** Whether {@code path} belongs to this API. */
    static boolean owns(String path) {
        return path.equals(HEALTH) || path.equals(READY);
    }

    Outcome handle(HttpMethod method, String path) throws MethodNotAllowedException {
        if (!method.equals(HttpMethod.GET)) {
            throw new MethodNotAllowedException(method.name(), "GET");
        }
        if (path.equals(HEALTH)) {
            return new Outcome.Probe(true, "ok");
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
