/**
 * Who the nodes of a cluster are, and whether they agree: each node's identity (cluster name, node id,
 * incarnation, state) stored in its data directory, the {@link io.ringbase.cluster.membership.Membership}
 * every node-to-node request is checked against, what each node remembers of its peers' incarnations, and
 * the state machine that keeps a node with a wiped data directory out of read quorums until it has
 * streamed its data back from its peers (a replacement, as Cassandra's {@code replace_address}).
 * Depends on {@code cluster.replication} (the read gate it implements) and {@code storage}; the node-to-node
 * transport ({@code cluster.rpc}) depends on it, not the other way.
 */
package io.ringbase.cluster.membership;
