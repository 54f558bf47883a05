/**
 * What a node says about itself: its metrics and its status.
 * <ul>
 *   <li>Metrics: counters the request path keeps without allocating ({@link io.ringbase.observe.RequestMetrics},
 *       {@link io.ringbase.observe.LatencyHistogram}), and their export with the engine's, the cluster
 *       services' and the JVM's figures in the Prometheus text format ({@link io.ringbase.observe.NodeMetrics},
 *       through the Prometheus Java client 1.x).</li>
 *   <li>Status: the JSON of {@code GET /v0/status} ({@link io.ringbase.observe.NodeStatus}) and the HTML
 *       status page of the whole cluster at {@code GET /} ({@link io.ringbase.observe.StatusPage}, which
 *       fetches every other node's status). JSON is written and read with Jackson's tree model.</li>
 * </ul>
 *
 * <p>Figures are read through interfaces ({@link io.ringbase.observe.ClusterSource} and the engine's
 * {@code EngineStats} supplier), so nothing here knows how a node is assembled. Concurrency: recording
 * is lock-free ({@link java.util.concurrent.atomic.LongAdder}s); a scrape reads every counter once, so
 * figures may be a moment apart. The status page runs on worker threads and may block briefly (it waits
 * up to a second for other nodes).
 */
package io.ringbase.observe;
