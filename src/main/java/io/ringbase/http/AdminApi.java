package io.ringbase.http;

import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;

/**
 * Operator endpoints under {@code /v0/admin/}: {@code POST /v0/admin/repair} starts an anti-entropy repair
 * of every range this node replicates (202), {@code GET /v0/admin/repair} reports its state as JSON.
 * Stateless and thread-safe; the repair itself is {@link RepairControl}'s.
 */
final class AdminApi {

    static final String REPAIR = "/v0/admin/repair";

    private final RepairControl repair;

    /** @param repair the repair service, or {@code null} on a single node (nothing to repair from) */
    AdminApi(RepairControl repair) {
        this.repair = repair;
    }

    static boolean owns(String path) {
        return path.startsWith("/v0/admin/");
    }

    Outcome handle(HttpMethod method, String path, QueryString query)
            throws NotFoundException, MethodNotAllowedException {
        if (!path.equals(REPAIR)) {
            throw new NotFoundException("unknown path " + path);
        }
        if (method.equals(HttpMethod.POST)) {
            if (repair != null) {
                repair.start(); // already running: the running one covers the request
            }
            return new Outcome.Started();
        }
        if (method.equals(HttpMethod.GET)) {
            String json = repair == null ? "{\"state\":\"idle\",\"note\":\"single node: nothing to repair\"}"
                    : repair.statusJson();
            return new Outcome.Body((json + "\n").getBytes(StandardCharsets.UTF_8), "application/json");
        }
        throw new MethodNotAllowedException(method.name(), "GET, POST");
    }
}
