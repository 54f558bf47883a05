/**
 * The cluster: a static set of nodes ({@link io.ringbase.cluster.Topology}) that together form one store,
 * after Dynamo (DeCandia et al., SOSP 2007) and Cassandra. Subpackages: {@code ring} (placement),
 * {@code replication} (coordinator, read repair), {@code rpc} (node-to-node protocol, client and server),
 * {@code proxy} (the cluster's key-value service), {@code membership} (node identity, membership agreement,
 * replacement of a node that lost its data), {@code hint} (hinted handoff), {@code repair} (Merkle-tree
 * anti-entropy), {@code scan} (cluster-wide range scans).
 * Depends on {@code storage}; knows nothing of the public HTTP API.
 */
package io.ringbase.cluster;
