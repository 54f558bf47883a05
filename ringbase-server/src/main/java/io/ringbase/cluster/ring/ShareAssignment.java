package io.ringbase.cluster.ring;

import io.ringbase.cluster.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which node processes which key in a job distributed over the replicas (docs/functions.md, "How a job
 * is distributed"), after Riak's MapReduce: a key's <em>chosen</em> replica is the first of its
 * {@link Ring#replicasOfHash read replicas} that is not in the set of nodes the coordinator believed down
 * when the job started. Every node computes the same answer from the same ring and down set, so the
 * shares of the nodes are disjoint and together hold every key that has a replica up.
 *
 * <p>A node that fails mid-job hands its share on: a key of a share is described by a <em>path</em>, the
 * nodes that in turn had it, the last of which has it now. A key is in share {@code [n1, ..., nk]} when
 * its replicas, without the down ones, begin with exactly {@code n1, ..., nk}: so {@code [n1]} is n1's
 * own share, and when n1 fails the keys of its share go to {@code [n1, m]} for each node m, i.e. to the
 * next replica of each key (the chosen replica with n1 marked down too), never to two nodes. Immutable
 * and thread-safe.
 */
public final class ShareAssignment {

    private final Ring ring;
    private final int replicationFactor;
    private final Set<NodeId> down;

    /**
     * @param ring              the ring the job's keys are placed by
     * @param replicationFactor replicas per key, {@code 1..ring.size()}
     * @param down              the nodes believed down when the job started
     * @throws IllegalArgumentException if the replication factor is out of range
     */
    public ShareAssignment(Ring ring, int replicationFactor, Set<NodeId> down) {
        if (replicationFactor < 1 || replicationFactor > ring.size()) {
            throw new IllegalArgumentException(
                    "replication factor must be 1.." + ring.size() + ", got " + replicationFactor);
        }
        this.ring = Objects.requireNonNull(ring, "ring");
        this.replicationFactor = replicationFactor;
        this.down = Set.copyOf(down);
    }

    /** The key's replicas that are not down, most preferred first; empty if all are down. */
    public List<NodeId> upReplicas(byte[] key) {
        List<NodeId> all = ring.replicasOfHash(Ring.keyHash(key), replicationFactor);
        List<NodeId> up = new ArrayList<>(all.size());
        for (NodeId n : all) {
            if (!down.contains(n)) {
                up.add(n);
            }
        }
        return up;
    }

    /** The node that processes {@code key}: its first replica not down, or {@code null} if all are down. */
    public @Nullable NodeId chosen(byte[] key) {
        List<NodeId> up = upReplicas(key);
        return up.isEmpty() ? null : up.getFirst();
    }

    /**
     * Whether {@code key} is in the share {@code path}: its replicas not down begin with exactly
     * {@code path}, in that order.
     *
     * @param path the nodes that had the share in turn, the one that has it now last; not empty
     */
    public boolean inShare(byte[] key, List<NodeId> path) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("a share's path names at least one node");
        }
        int matched = 0; // the replicas not down, compared with the path as they come: no list built
        for (NodeId n : ring.replicasOfHash(Ring.keyHash(key), replicationFactor)) {
            if (down.contains(n)) {
                continue;
            }
            if (!n.equals(path.get(matched))) {
                return false;
            }
            if (++matched == path.size()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the keys of share {@code path} still all have a replica to go to once its last node
     * fails: false once the down nodes and the path together could hold all of a key's replicas. Then
     * some key may have no replica left, and the job must fail rather than skip it.
     */
    public boolean canHandOn(List<NodeId> path) {
        java.util.HashSet<NodeId> gone = new java.util.HashSet<>(down);
        gone.addAll(path);
        return gone.size() < replicationFactor;
    }
}
