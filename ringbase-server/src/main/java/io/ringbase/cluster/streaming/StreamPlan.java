package io.ringbase.cluster.streaming;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import java.util.Objects;

/**
 * Which keys one node streams to another for one membership change: the keys {@code target} becomes a
 * replica of between {@code before} and {@code after}, taken from {@code source}, a replica of them
 * before. Immutable and thread-safe.
 *
 * <p>For a join the node a key's new replica displaces from its first {@code rf} replicas is the one
 * that sends it ({@code anyOldReplica} false): exactly one old replica leaves each key's list, so each
 * key reaches the joining node exactly once across the plans of all sources. When that node is down,
 * {@code anyOldReplica} true lets any old replica send it instead (the target then gets a key once from
 * each such plan it runs; a second copy changes nothing, versions decide).
 *
 * @param epoch         the cluster metadata epoch of {@code after}; a cursor of another epoch is not resumed
 * @param rf            replication factor of both rings, {@code 1..} each ring's size
 * @param before        placement before the change
 * @param after         placement after the change
 * @param source        the node that sends, a member of {@code before}
 * @param target        the node that receives, a member of {@code after}
 * @param anyOldReplica whether {@code source} sends every key it held that {@code target} gains, not only
 *                      those it stops holding
 */
public record StreamPlan(
        long epoch, int rf, Ring before, Ring after, NodeId source, NodeId target, boolean anyOldReplica) {

    /**
     * @throws IllegalArgumentException if {@code rf} exceeds either ring, the source is not in
     *                                  {@code before}, the target not in {@code after}, or they are the same node
     */
    public StreamPlan {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        if (rf < 1 || rf > before.size() || rf > after.size()) {
            throw new IllegalArgumentException(
                    "rf must be 1.." + Math.min(before.size(), after.size()) + " (the smaller ring), got " + rf);
        }
        if (!before.contains(source)) {
            throw new IllegalArgumentException("source " + source + " is not in the ring before: " + before.nodes());
        }
        if (!after.contains(target)) {
            throw new IllegalArgumentException("target " + target + " is not in the ring after: " + after.nodes());
        }
        if (source.toString().equals(target.toString())) {
            throw new IllegalArgumentException("source and target are the same node " + source);
        }
    }

    /**
     * Whether the key with hash {@code keyHash} ({@link Ring#keyHash}) moves under this plan: the target
     * is a replica after and was not before, the source was one before, and (unless
     * {@code anyOldReplica}) the source is not one after.
     */
    public boolean wants(long keyHash) {
        return after.isReplica(keyHash, rf, target)
                && !before.isReplica(keyHash, rf, target)
                && before.isReplica(keyHash, rf, source)
                && (anyOldReplica || !after.isReplica(keyHash, rf, source));
    }

    /** {@code epoch 7 http://a:1 -> http://b:2}, for log lines and errors. */
    public String describe() {
        return "epoch " + epoch + " " + source + " -> " + target + (anyOldReplica ? " (any old replica)" : "");
    }
}
