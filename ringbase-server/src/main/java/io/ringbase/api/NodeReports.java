package io.ringbase.api;

/**
 * What the node tells about itself over HTTP, made by the node's assembly from its parts: its metrics
 * ({@code GET /metrics}), its status as JSON ({@code GET /v0/status}) and the cluster's status page
 * ({@code GET /}). Implementations are thread-safe; each call may take a few milliseconds, the page up to
 * about a second (it asks the other nodes), so they run on workers.
 */
public interface NodeReports {

    /** A server with no reports (a bare server in tests and tools): each of them is 404. */
    NodeReports NONE = new NodeReports() {
        @Override
        public byte[] metrics() throws NotFoundException {
            throw new NotFoundException("no /metrics on this server");
        }

        @Override
        public String metricsContentType() {
            return "text/plain";
        }

        @Override
        public String statusJson() throws NotFoundException {
            throw new NotFoundException("no /v0/status on this server");
        }

        @Override
        public String statusPage() throws NotFoundException {
            throw new NotFoundException("no status page on this server");
        }
    };

    /**
     * Every metric now, in the Prometheus text exposition format.
     *
     * @throws NotFoundException if metrics are off ({@code --no-metrics})
     */
    byte[] metrics() throws NotFoundException;

    /** The {@code Content-Type} of {@link #metrics()}. */
    String metricsContentType();

    /** This node's status, one JSON object. */
    String statusJson() throws NotFoundException;

    /** The HTML status page of the cluster. */
    String statusPage() throws NotFoundException;
}
