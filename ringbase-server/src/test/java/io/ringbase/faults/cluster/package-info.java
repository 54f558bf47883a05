/**
 * Real Ringbase node processes, one per network namespace of a {@link io.ringbase.faults.net.NetworkLab}:
 * started with the test classpath ({@code io.ringbase.cli.Main serve}) through {@code nsenter}, then
 * killed, paused, resumed and restarted by the nemeses ({@link io.ringbase.faults.cluster.NsNode},
 * {@link io.ringbase.faults.cluster.NsCluster}). An elastic cluster's founding nodes run the metadata log
 * ({@code --metadata-port-offset}); nodes that join it ({@code --join}) get namespaces of their own and are
 * removed once they have LEFT.
 */
package io.ringbase.faults.cluster;
