package io.ringbase.cluster.ring;

import io.ringbase.cluster.NodeId;
import io.ringbase.kv.ScanShare;
import io.ringbase.storage.KeyFilter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * The keys of one share of a distributed job ({@link ScanShare}) as a {@link KeyFilter}: those whose
 * replicas in the current ring, without the share's down nodes, begin with exactly its path
 * ({@link ShareAssignment#inShare}). The node that runs a share's page and every replica its scan asks
 * build the same filter from the same description, so a replica can leave out the other keys before it
 * sends a page (docs/http-api.md, "Share description encoding") and the quorum merge still sees every
 * key of the share on every replica that holds it. Immutable and thread-safe.
 */
public final class ShareFilter implements KeyFilter {

    private final ScanShare share;
    private final ShareAssignment assignment;
    private final List<NodeId> path;

    private ShareFilter(ScanShare share, ShareAssignment assignment, List<NodeId> path) {
        this.share = share;
        this.assignment = assignment;
        this.path = path;
    }

    /**
     * The filter of {@code share} on {@code placement}'s current ring.
     *
     * @throws IllegalArgumentException if the share is of another epoch than {@code placement} (its ring
     *                                  could differ), or names a node that is not in it; the message says
     *                                  which
     */
    public static ShareFilter of(Placement placement, ScanShare share) {
        Objects.requireNonNull(share, "share");
        if (share.epoch() != placement.epoch()) {
            throw new IllegalArgumentException("share of placement epoch " + share.epoch() + ", this node is at "
                    + placement.epoch() + ": the shares would differ");
        }
        ShareAssignment assignment = new ShareAssignment(
                placement.current(), placement.replicationFactor(), new HashSet<>(ids(placement, share.down())));
        return new ShareFilter(share, assignment, List.copyOf(ids(placement, share.path())));
    }

    /** The description this filter was built from. */
    public ScanShare share() {
        return share;
    }

    @Override
    public boolean keep(byte[] key) {
        return assignment.inShare(key, path);
    }

    private static List<NodeId> ids(Placement p, Collection<String> urls) {
        List<NodeId> out = new ArrayList<>(urls.size());
        for (String u : urls) {
            NodeId n = p.byUrl(u);
            if (n == null) {
                throw new IllegalArgumentException("node " + u + " of the share is not in the ring");
            }
            out.add(n);
        }
        return out;
    }

    @Override
    public String toString() {
        return "ShareFilter[epoch " + share.epoch() + ", path " + share.path() + ", down " + share.down() + "]";
    }
}
