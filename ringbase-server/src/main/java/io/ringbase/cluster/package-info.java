/**
 * The cluster: a set of nodes that together form one store, after Dynamo (DeCandia et al., SOSP 2007) and
 * Cassandra; static ({@link io.ringbase.cluster.Topology}, the {@code --cluster} list) or elastic (members
 * from a metadata log). Subpackages: {@code ring} (placement, and the placement of an epoch),
 * {@code replication} (coordinator, read repair), {@code rpc} (node-to-node protocol, client and server),
 * {@code proxy} (the cluster's key-value service), {@code membership} (node identity, membership agreement,
 * replacement of a node that lost its data), {@code hint} (hinted handoff), {@code repair} (Merkle-tree
 * anti-entropy), {@code scan} (cluster-wide range scans), {@code metadata} (the Raft log of cluster
 * metadata), {@code elastic} (membership from that log: join, decommission, replace, remove, cleanup),
 * {@code streaming} (moving keys between nodes).
 * Depends on {@code storage}; knows nothing of the public HTTP API.
 */
package io.ringbase.cluster;
