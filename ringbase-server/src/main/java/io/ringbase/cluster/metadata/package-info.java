/**
 * Cluster metadata as a linearizable log with epochs, after Cassandra 5's Transactional Cluster Metadata
 * (CEP-21): membership, node states, placement and the replication factor are one immutable
 * {@link io.ringbase.cluster.metadata.ClusterMetadata} value, changed only by
 * {@link io.ringbase.cluster.metadata.Transformation}s committed to a replicated log, each applied change
 * one epoch. The log is an Apache Ratis (Raft) group among a configured set of nodes
 * ({@link io.ringbase.cluster.metadata.MetadataService}: Ratis's Netty transport, or its gRPC transport with
 * mutual TLS when the node's cluster URLs are {@code https://}); the state machine
 * ({@link io.ringbase.cluster.metadata.MetadataStateMachine}) applies committed transformations and
 * snapshots the result. Formats: {@code docs/metadata-format.md}.
 *
 * <p>Transformations are pure: {@code Transformation.execute} validates against the current metadata and
 * returns the next metadata or a one-line rejection, so the whole membership logic is testable without
 * Ratis. Ratis types stay inside this package: nothing in its public API names them.
 *
 * <p>Concurrency: {@code ClusterMetadata} and the transformations are immutable. The state machine applies
 * entries on Ratis's single state machine updater thread and publishes each result through a volatile
 * field, so {@code MetadataService.current()} never blocks and never waits for the metadata quorum.
 * Listeners run on that updater thread and must return quickly.
 *
 * <p>The node reaches it only through {@code io.ringbase.cluster.elastic}, which turns each epoch into a
 * placement; a cluster started from a static {@code --cluster} list alone never runs it.
 */
package io.ringbase.cluster.metadata;
