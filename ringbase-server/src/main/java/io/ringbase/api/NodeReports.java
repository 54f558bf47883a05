package io.ringbase.api;

/**
 * What the node tells about itself over HTTP, made by the node ({@code server.Node}) from its parts:
 * its metrics ({@code GET /metrics}), its status as JSON ({@code GET /v0/status}) and the cluster's
 * status page ({@code GET /}). Implementations are thread-safe; each call may take a few milliseconds,
 * the page up to about a second (it asks the other nodes), so they run on workers.
 */
public interface NodeReports {

    /** Every metric now, in the Prometheus text exposition format, or {@code null} with metrics off. */
    byte[] metrics();

    /** The {@code Content-Type} of {@link #metrics()}. */
    String metricsContentType();

    /** This node's status, one JSON object. */
    String statusJson();

    /** The HTML status page of the cluster. */
    String statusPage();
}
