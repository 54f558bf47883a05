package io.ringbase.node;

import io.ringbase.api.NodeReports;
import io.ringbase.api.NotFoundException;
import io.ringbase.observe.NodeMetrics;
import io.ringbase.observe.NodeStatus;
import io.ringbase.observe.StatusPage;
import org.jspecify.annotations.Nullable;

/** What a node's HTTP API serves about the node: its metrics, status and the cluster's status page. */
final class Reports implements NodeReports {

    private final @Nullable NodeMetrics metrics;
    private final NodeStatus status;
    private final StatusPage page;

    /** @param metrics the node's metrics, or {@code null} with metrics off ({@code --no-metrics}: 404) */
    Reports(@Nullable NodeMetrics metrics, NodeStatus status, StatusPage page) {
        this.metrics = metrics;
        this.status = status;
        this.page = page;
    }

    @Override
    public byte[] metrics() throws NotFoundException {
        if (metrics == null) {
            throw new NotFoundException("metrics are off on this node (--no-metrics)");
        }
        return metrics.scrape();
    }

    @Override
    public String metricsContentType() {
        return NodeMetrics.CONTENT_TYPE;
    }

    @Override
    public String statusJson() {
        return status.json();
    }

    @Override
    public String statusPage() {
        return page.render();
    }
}
