/**
 * Real Ringbase node processes, one per network namespace of a {@link io.ringbase.faults.net.NetworkLab}:
 * started with the test classpath ({@code io.ringbase.cli.Main serve}) through {@code nsenter}, then
 * killed, paused, resumed and restarted by the nemeses ({@link io.ringbase.faults.cluster.NsNode},
 * {@link io.ringbase.faults.cluster.NsCluster}).
 */
package io.ringbase.faults.cluster;
