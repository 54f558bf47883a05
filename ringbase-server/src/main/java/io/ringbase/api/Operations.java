package io.ringbase.api;

import io.ringbase.auth.RequestSigner;
import io.ringbase.observe.RequestMetrics;

/**
 * What the HTTP API of a node offers operators besides the data: request counting, reports and the
 * admin endpoints. Any part may be {@code null}.
 *
 * @param requests    counts every request by endpoint, method and status, with its latency; {@code null}
 *                    to count nothing (metrics off)
 * @param reports     what {@code /metrics}, {@code /v0/status} and {@code /} serve; {@code null}: those 404
 * @param admin       flush, compaction and snapshots under {@code /v0/admin/}; {@code null}: those 404
 * @param adminSigner checks admin requests' HMAC ({@code --cluster-secret-file}); {@code null} when the
 *                    node has no secret (admin requests are then accepted from anyone who can reach it)
 * @param accessLog   whether every request is logged (method, target, status, microseconds) on the logger
 *                    {@value ConnectionHandler#ACCESS_LOGGER} at INFO
 */
public record Operations(RequestMetrics requests, NodeReports reports, AdminControl admin, RequestSigner adminSigner,
                         boolean accessLog) {

    /** Requests counted, nothing else: what a bare server (tests, tools) offers. */
    public static Operations countingOnly() {
        return new Operations(RingbaseHttpServer.newRequestMetrics(), null, null, null, false);
    }
}
