package io.ringbase.cluster.replication;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * A coordinator's replicas: one per node index, created as nodes appear in its placements and kept after
 * (a node that left may still be hinted), and the list of those of the current placement's nodes.
 * Thread-safe: reads are lock-free, {@link #update} is called under the coordinator's lock.
 */
final class ReplicaDirectory {

    private final AtomicReferenceArray<Replica> byIndex = new AtomicReferenceArray<>(HybridLogicalClock.MAX_NODES);
    private volatile List<Replica> members;

    /** A directory of {@code replicas}, which are also its members. */
    ReplicaDirectory(List<Replica> replicas) {
        for (Replica r : replicas) {
            byIndex.set(r.node().index(), r);
        }
        this.members = List.copyOf(replicas);
    }

    /** The replica of the node with this index, or null if none was ever placed. */
    Replica get(int index) {
        return byIndex.get(index);
    }

    /** The replicas of the placement's nodes. */
    List<Replica> members() {
        return members;
    }

    /** Makes {@code nodes} the members, creating the replica of a node new here with {@code newReplica}. */
    void update(List<NodeId> nodes, Function<NodeId, Replica> newReplica) {
        List<Replica> all = new ArrayList<>(nodes.size());
        for (NodeId n : nodes) {
            Replica r = byIndex.get(n.index());
            if (r == null || !r.node().equals(n)) {
                r = newReplica.apply(n);
                byIndex.set(n.index(), r);
            }
            all.add(r);
        }
        members = List.copyOf(all);
    }
}
