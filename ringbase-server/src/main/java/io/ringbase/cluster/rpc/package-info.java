/**
 * The node-to-node client: how a coordinator reaches other nodes' internal API. Owns the non-blocking
 * Netty client with pooled keep-alive connections ({@link io.ringbase.cluster.rpc.ReplicaClient}), the
 * internal protocol's wire format ({@link io.ringbase.cluster.rpc.InternalProtocol}), batching of replica
 * operations per peer bounded by bytes and count ({@link io.ringbase.cluster.rpc.ReplicaBatcher}), request
 * signing with the cluster secret ({@link io.ringbase.auth.RequestSigner}), per-peer call
 * statistics, and the remote implementations of {@code Replica} and {@code RepairPeer}. A
 * {@link io.ringbase.cluster.rpc.RemoteReplica} sends its hot calls through a faster transport when one
 * takes them ({@link io.ringbase.cluster.rpc.ReplicaCalls}, implemented by {@code cluster.wire}).
 */
package io.ringbase.cluster.rpc;
