/**
 * Replication: the coordinator that sends each request to a key's replicas and answers after {@code ack}
 * of {@code from} (Dynamo's sloppy-free quorum), linearizable quorum writes (in one round trip,
 * {@link io.ringbase.cluster.replication.WriteProtocol}), version resolution, read repair, speculative retry
 * of reads and the failure detector's down/slow beliefs; the
 * {@link io.ringbase.cluster.replication.Replica} abstraction over the local engine and remote nodes.
 */
package io.ringbase.cluster.replication;
