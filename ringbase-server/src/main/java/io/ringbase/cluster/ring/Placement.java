package io.ringbase.cluster.ring;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where keys live at one epoch of the cluster metadata: the {@code current} ring, which reads use, and the
 * {@code next} ring, which a membership change in progress moves to. Writes go to a key's replicas in both
 * (CEP-21's write placement; Cassandra's pending ranges before it), so that the quorums of the old and the
 * new placement intersect at every step of a join, decommission or replacement. With no change in
 * progress both rings are the same object. Immutable.
 *
 * <p>A replacement is the exception: the node it replaces is dead and its data gone, so rather than one
 * more replica to acknowledge (which, with one of a key's replicas dead, would need every other one) the
 * replacement takes the replaced node's place among a write's replicas ({@link #writeReplicas}). Reads keep
 * using the current ring, where the replaced node answers nothing, so a read quorum there holds every
 * other replica of the key and meets every write quorum that includes the replacement; the replacement
 * streams from every other replica before it is read from.
 *
 * @param epoch             the metadata epoch this placement is of; 0 for a static topology
 * @param self              this node (it may be in neither ring: a node that left)
 * @param replicationFactor copies of each key, {@code 1..current.size()}
 * @param current           the placement reads use: NORMAL and LEAVING nodes
 * @param next              the placement after the change in progress; {@code current} when none is
 * @param replacements      the nodes being replaced, by node index, each to the node that replaces it (in
 *                          {@code next}); empty when no replacement is in progress
 */
public record Placement(
        long epoch, NodeId self, int replicationFactor, Ring current, Ring next, Map<Integer, NodeId> replacements) {

    /** @throws IllegalArgumentException if the epoch is negative or the factor is out of {@code 1..current.size()} */
    public Placement {
        Objects.requireNonNull(self, "self");
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(next, "next");
        replacements = Map.copyOf(replacements);
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
        if (replicationFactor < 1 || replicationFactor > Math.min(current.size(), next.size())) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " must be between 1 and "
                    + Math.min(current.size(), next.size()) + " (the nodes that hold data)");
        }
    }

    /** A placement with no replacement in progress. */
    public Placement(long epoch, NodeId self, int replicationFactor, Ring current, Ring next) {
        this(epoch, self, replicationFactor, current, next, Map.of());
    }

    /** The placement of a static topology: epoch 0, one ring, nothing moving. */
    public static Placement of(Topology topology) {
        Ring ring = new Ring(topology);
        return new Placement(0, topology.self(), topology.replicationFactor(), ring, ring);
    }

    /** Whether a membership change is in progress: the two rings differ. */
    public boolean changing() {
        return current != next;
    }

    /** The first {@code from} replicas of the key with this hash in the current ring: whom reads ask. */
    public List<NodeId> readReplicas(long keyHash, int from) {
        return current.replicasOfHash(keyHash, from);
    }

    /**
     * The replicas a write sends to and counts acknowledgements from, before any pending ones:
     * {@code readReplicas} with each node being replaced swapped for its replacement, in the same position;
     * {@code readReplicas} itself when none of them is being replaced.
     */
    public List<NodeId> writeReplicas(List<NodeId> readReplicas) {
        if (replacements.isEmpty()) {
            return readReplicas;
        }
        List<NodeId> out = null;
        for (int i = 0; i < readReplicas.size(); i++) {
            NodeId by = replacements.get(readReplicas.get(i).index());
            if (by != null) {
                if (out == null) {
                    out = new ArrayList<>(readReplicas);
                }
                out.set(i, by);
            }
        }
        return out == null ? readReplicas : List.copyOf(out);
    }

    /**
     * The replicas a write of the key with this hash must reach besides {@code writeReplicas}: those of the
     * first {@code from} of the next ring that are not among {@code writeReplicas} (empty when nothing moves,
     * and for a replacement's keys). A write waits for one more acknowledgement per pending replica.
     */
    public List<NodeId> pendingReplicas(long keyHash, List<NodeId> writeReplicas, int from) {
        if (!changing()) {
            return List.of();
        }
        List<NodeId> pending = null;
        for (NodeId n : next.replicasOfHash(keyHash, Math.min(from, next.size()))) {
            if (!writeReplicas.contains(n)) {
                if (pending == null) {
                    pending = new ArrayList<>(1);
                }
                pending.add(n);
            }
        }
        return pending == null ? List.of() : pending;
    }

    /** Every node of either ring, current first, each once: the nodes requests may be sent to. */
    public List<NodeId> nodes() {
        if (!changing()) {
            return current.nodes();
        }
        Map<Integer, NodeId> all = new LinkedHashMap<>();
        for (NodeId n : current.nodes()) {
            all.put(n.index(), n);
        }
        for (NodeId n : next.nodes()) {
            all.putIfAbsent(n.index(), n);
        }
        return List.copyOf(all.values());
    }

    /** The node with this index in either ring, or null. */
    public NodeId node(int index) {
        for (NodeId n : nodes()) {
            if (n.index() == index) {
                return n;
            }
        }
        return null;
    }

    /** The node with this URL ({@code http://host:port}) in either ring, or null. */
    public NodeId byUrl(String url) {
        for (NodeId n : nodes()) {
            if (n.toString().equals(url)) {
                return n;
            }
        }
        return null;
    }

    /** Whether this node is alone: one node and nothing moving. */
    public boolean isAlone() {
        return !changing() && current.size() == 1;
    }

    @Override
    public String toString() {
        return "Placement[epoch " + epoch + ", rf " + replicationFactor + ", current "
                + Arrays.toString(current.nodes().toArray()) + (changing() ? ", next " + next.nodes() : "") + "]";
    }
}
