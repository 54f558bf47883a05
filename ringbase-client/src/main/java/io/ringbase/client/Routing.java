package io.ringbase.client;

/** Which node a {@link RingbaseClient} sends a point request to ({@link RingbaseClient.Builder#routing}). */
public enum Routing {
    /**
     * Any node, the given ones in turn whatever the key: the node that answers coordinates the request and
     * reaches every replica of the key over the network unless it is one of them.
     */
    RANDOM,
    /**
     * One of the key's replicas, found from the cluster's placement ({@code GET /v0/ring}): the first one not
     * marked down, then the next ones, then any node. The coordinator then serves one replica operation from
     * its own engine, saving a network round trip per replica call it would have sent.
     */
    REPLICA
}
