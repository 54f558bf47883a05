/**
 * Assembly of one node: opens the engine, builds the cluster services (replica client, coordinator,
 * hints, repair) when the topology has more than one node, and starts the HTTP API
 * ({@link io.ringbase.node.Node}). Used by {@code ringbase serve} and by in-process cluster tests.
 */
package io.ringbase.node;
