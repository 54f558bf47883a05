package io.ringbase.cluster.membership;

/** Streams this node's data back from its peers: one full anti-entropy repair against every peer. */
@FunctionalInterface
public interface StreamFromPeers {

    /**
     * Runs one repair against every peer and waits for it to end.
     *
     * @return whether every range with every peer completed (a node that lost its data is whole again
     *         only then)
     * @throws InterruptedException if the node is closing
     */
    boolean run() throws InterruptedException;
}
