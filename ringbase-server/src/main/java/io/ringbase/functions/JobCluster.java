package io.ringbase.functions;

import io.ringbase.storage.KeyFilter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What a distributed job needs of the cluster, without this package knowing the cluster: the nodes, which
 * are believed up, which keys make a share ({@code io.ringbase.cluster.ring.ShareAssignment}), and a call
 * that runs one page of a share on a peer ({@code POST /internal/v0/process-share}). Nodes are named by
 * their URL. The node implements it; a node alone has none. Thread-safe.
 */
public interface JobCluster {

    /** This node's URL. */
    String self();

    /** The epoch of the placement {@link #nodes()} and {@link #share} are of (0 for a static topology). */
    long epoch();

    /** The nodes of the current ring, in its order. */
    List<String> nodes();

    /**
     * The nodes believed down now (a snapshot the coordinator sends along, so that every node computes the
     * same shares). Blocks while probing nodes believed down (a worker).
     *
     * @throws java.io.IOException if the probe failed
     */
    Set<String> down() throws java.io.IOException;

    /** How many nodes a range scan needs up: fewer up and a job cannot start. */
    int nodesNeeded();

    /**
     * The keys of share {@code path}: those whose replicas without {@code down} begin with {@code path}.
     *
     * @throws IllegalArgumentException if a node is not in the ring, or the path is empty
     */
    KeyFilter share(Set<String> down, List<String> path);

    /**
     * Whether share {@code path} can be handed on when its last node fails: false once some key of it may
     * have no replica left.
     */
    boolean canHandOn(Set<String> down, List<String> path);

    /**
     * Runs one page of a share on {@code node} (never this node): sends {@code request} (a
     * {@link SharePage.Request}, encoded) and answers the reply's body. Fails with
     * {@link ShareFailedException}: answered when the node answered with an error, not answered when it
     * could not be reached or did not answer within {@code timeoutMs}.
     */
    CompletableFuture<byte[]> call(String node, byte[] request, long timeoutMs);
}
