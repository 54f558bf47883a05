/**
 * Elastic membership: the node's placement and state taken from the cluster metadata log
 * ({@code cluster.metadata}), and the membership changes a node drives, in CEP-21's steps (Cassandra 5's
 * transactional cluster metadata): its own join ({@link io.ringbase.cluster.elastic.JoinBootstrap} before the
 * node opens, {@code JoinDriver} after) and its own decommission. Keys move by streaming
 * ({@code cluster.streaming}).
 *
 * <p>Every epoch becomes a {@link io.ringbase.cluster.ring.Placement} ({@link io.ringbase.cluster.elastic.Placements})
 * that the coordinator takes at once; requests never wait for the log. Only this package, besides the log's
 * own, uses {@code cluster.metadata}.
 */
package io.ringbase.cluster.elastic;
