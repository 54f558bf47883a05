package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The placement a {@link ClusterMetadata} implies. A member's node index is its id less one (founding members
 * 1..n are indexes 0..n-1, their positions in the {@code --cluster} list); its ring weight comes from the URL
 * of the member whose token it carries, so a replacement takes over exactly the replaced node's keys.
 */
public final class Placements {

    private Placements() {}

    /** The node of a member: index {@code id - 1}, host and port of its URL. */
    public static NodeId nodeOf(Member member) {
        URI uri = Topology.parseUrl(member.url());
        return new NodeId(member.id() - 1, uri.getHost(), uri.getPort());
    }

    /**
     * The placement of {@code metadata} as seen by {@code self}: the current ring of its NORMAL and LEAVING
     * members (a node being replaced stays in it until the replacement finishes), and the next ring of its
     * NORMAL, JOINING and REPLACING members less those leaving or being replaced.
     *
     * @throws IllegalArgumentException if the metadata is not initialized or holds fewer nodes than its
     *                                  replication factor
     */
    public static Placement of(ClusterMetadata metadata, NodeId self) {
        if (!metadata.isInitialized()) {
            throw new IllegalArgumentException("the cluster metadata is not initialized yet");
        }
        Set<Integer> replaced = new HashSet<>();
        Map<Integer, NodeId> replacements = new HashMap<>();
        for (Member m : metadata.inState(MemberState.REPLACING)) {
            replaced.add(m.replaces());
            replacements.put(m.replaces() - 1, nodeOf(m));
        }
        List<Member> current = new ArrayList<>();
        List<Member> next = new ArrayList<>();
        for (Member m : metadata.members().values()) {
            switch (m.state()) {
                case NORMAL -> {
                    current.add(m);
                    if (!replaced.contains(m.id())) {
                        next.add(m);
                    }
                }
                case LEAVING -> current.add(m);
                case JOINING, REPLACING -> next.add(m);
                case LEFT -> {}
            }
        }
        Ring currentRing = ring(metadata, current);
        Ring nextRing = current.equals(next) ? currentRing : ring(metadata, next);
        return new Placement(metadata.epoch(), self, metadata.replicationFactor(), currentRing, nextRing, replacements);
    }

    /** Every live (not LEFT) member's node, by ascending index: whom a node sends requests and hellos to. */
    public static List<NodeId> liveNodes(ClusterMetadata metadata) {
        List<NodeId> out = new ArrayList<>();
        for (Member m : metadata.members().values()) {
            if (m.state().isLive()) {
                out.add(nodeOf(m));
            }
        }
        return out;
    }

    private static Ring ring(ClusterMetadata metadata, List<Member> members) {
        List<NodeId> nodes = new ArrayList<>(members.size());
        List<String> seeds = new ArrayList<>(members.size());
        for (Member m : members) {
            nodes.add(nodeOf(m));
            seeds.add(metadata.member(m.token()).map(Member::url).orElse(m.url()));
        }
        return new Ring(nodes, seeds);
    }
}
