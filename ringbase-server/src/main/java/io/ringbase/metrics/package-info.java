/**
 * A node's metrics: counters the request path keeps without allocating ({@link
 * io.ringbase.metrics.RequestMetrics}, {@link io.ringbase.metrics.LatencyHistogram}), and their export, with the
 * engine's and the cluster services' figures and the JVM's, in the Prometheus text format
 * ({@link io.ringbase.metrics.NodeMetrics}, through the Prometheus Java client 1.x).
 *
 * <p>Concurrency: recording is lock-free ({@link java.util.concurrent.atomic.LongAdder}s); a scrape
 * reads every counter once, so figures may be a moment apart. Depends on {@code storage} and
 * {@code cluster} for their figures; {@code http} records into it, {@code server} assembles it.
 */
package io.ringbase.metrics;
