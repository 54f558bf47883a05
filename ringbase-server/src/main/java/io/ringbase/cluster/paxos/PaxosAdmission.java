package io.ringbase.cluster.paxos;

import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.ring.Placement;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Whether this node's acceptor answers a Paxos request, decided before it touches any state; the same
 * rule for a peer's call (over HTTP or protocol v2) and for the node's own proposer (design.md,
 * "Compare-and-set"):
 * <ol>
 *   <li>a request of an older metadata epoch than this node's placement is answered {@link
 *       PaxosMessages.Stale} with this node's epoch: its proposer chose the participants by a placement
 *       that is no longer current, and catches up first (CEP-21's rule that a peer at a newer epoch refuses
 *       a request of an older one);</li>
 *   <li>a node without its data that no epoch knows of ({@code lost}: a wiped node its peers remember)
 *       refuses every request;</li>
 *   <li>a node that refuses reads because it is moving ({@code moving}: joining, replacing) answers only
 *       the requests of its own epoch for keys it is a pending participant of ({@link Participants}):
 *       there its promise counts and its read is ignored. Any other request is refused: a replacement at
 *       the URL of the node it replaces must never answer for that node, which an older proposer
 *       addresses at that URL.</li>
 * </ol>
 * Thread-safe; cheap (one placement read and, for a moving node, one ring lookup).
 */
public final class PaxosAdmission {

    /** Answers every request (a node alone, tests). */
    public static final PaxosAdmission OPEN = new PaxosAdmission(null, ReadGate.OPEN, ReadGate.OPEN);

    private final @Nullable Supplier<Placement> placement;
    private final ReadGate lost;
    private final ReadGate moving;

    /**
     * @param placement this node's placement now (its epoch; its rings say which keys this node is pending
     *                  for); {@code null}: no epochs, and a moving node is never pending
     * @param lost      refuses while this node lacks data no epoch accounts for (it then refuses every call)
     * @param moving    refuses while this node is pending in a membership change
     */
    public PaxosAdmission(@Nullable Supplier<Placement> placement, ReadGate lost, ReadGate moving) {
        this.placement = placement;
        this.lost = lost;
        this.moving = moving;
    }

    /** A {@link PaxosMessages.Stale} answer if this node's epoch is newer than the request's, else null. */
    public PaxosMessages.@Nullable Stale stale(PaxosMessages.Request request) {
        if (placement == null) {
            return null;
        }
        long epoch = placement.get().epoch();
        return epoch > request.epoch() ? new PaxosMessages.Stale(epoch) : null;
    }

    /** {@code null} if this node answers {@code request}, else why not (one line). */
    public @Nullable String refusal(PaxosMessages.Request request) {
        String why = lost.readRefusal();
        if (why != null) {
            return "this node takes no Paxos calls while it refuses reads: " + why;
        }
        why = moving.readRefusal();
        if (why == null) {
            return null;
        }
        Placement p = placement == null ? null : placement.get();
        if (p != null
                && p.epoch() == request.epoch()
                && Participants.of(p, request.key()).isPending(p.self())) {
            return null; // a pending participant at the proposer's epoch: its promise counts, its read is ignored
        }
        return "this node takes no Paxos calls while it refuses reads, but for keys it is pending for at its epoch "
                + (p == null ? 0 : p.epoch()) + " (the request is of epoch " + request.epoch() + "): " + why;
    }
}
