package io.ringbase.cluster.paxos;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.kv.Quorum;
import java.util.ArrayList;
import java.util.List;

/**
 * Who takes part in a key's Paxos rounds at one placement, and how many of them each phase needs: the
 * rule of Cassandra's {@code Paxos.Participants} ("requiredParticipants"). The <i>natural</i> replicas are
 * the key's replicas in the current ring (the read placement); the <i>pending</i> ones are those a
 * membership change in progress adds (a joining node, a leaving node's next owner, a replacement in the
 * slot of the node it replaces). Every phase is sent to all of them and needs {@code majority(natural) +
 * pending.size()} positive answers, so that its quorum holds a majority of the natural replicas (which
 * meets every quorum of the previous epoch) and, counted over natural and pending together, meets every
 * quorum of the next one (design.md, "Compare-and-set").
 *
 * <p>A node being replaced is among the natural replicas (it counts toward the majority) but is sent
 * nothing: it is dead (a replacement requires it), and its replacement may listen at its URL, where a
 * message to the dead node would be answered by the replacement a second time.
 *
 * @param epoch    the metadata epoch of the placement (0: a static cluster); every message carries it
 * @param natural  the key's replicas in the current ring, in ring order
 * @param pending  the replicas the change in progress adds, none of them natural; empty when nothing moves
 * @param targets  whom each phase is sent to: the natural replicas that are not being replaced, then the
 *                 pending ones
 * @param required positive answers each phase needs: {@code majority(natural.size()) + pending.size()}
 */
public record Participants(long epoch, List<NodeId> natural, List<NodeId> pending, List<NodeId> targets, int required) {

    /** @throws IllegalArgumentException if {@code required} is out of {@code 1..natural.size() + pending.size()} */
    public Participants {
        natural = List.copyOf(natural);
        pending = List.copyOf(pending);
        targets = List.copyOf(targets);
        if (required < 1 || required > natural.size() + pending.size()) {
            throw new IllegalArgumentException("required " + required + " of " + natural.size() + " natural and "
                    + pending.size() + " pending participants");
        }
    }

    /** The participants of the rounds of {@code key} at {@code placement}. */
    public static Participants of(Placement placement, byte[] key) {
        return of(placement, Ring.keyHash(key));
    }

    /** {@link #of(Placement, byte[])} for a key whose {@link Ring#keyHash} is known. */
    public static Participants of(Placement placement, long keyHash) {
        List<NodeId> natural = placement.readReplicas(keyHash, placement.replicationFactor());
        List<NodeId> write = placement.writeReplicas(natural);
        List<NodeId> pending = new ArrayList<>(1);
        for (NodeId n : write) {
            if (!natural.contains(n)) {
                pending.add(n); // a replacement, in the slot of the node it replaces
            }
        }
        pending.addAll(placement.pendingReplicas(keyHash, write, placement.replicationFactor()));
        List<NodeId> targets = new ArrayList<>(natural.size() + pending.size());
        for (NodeId n : natural) {
            if (!placement.replacements().containsKey(n.index())) {
                targets.add(n);
            }
        }
        targets.addAll(pending);
        return new Participants(
                placement.epoch(), natural, pending, targets, Quorum.majority(natural.size()) + pending.size());
    }

    /** Whether {@code node} takes part only as a pending replica: its promise counts, its read does not. */
    public boolean isPending(NodeId node) {
        return pending.contains(node);
    }
}
