package io.ringbase.cluster.metadata;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The cluster metadata at one epoch: an immutable value, after CEP-21's {@code ClusterMetadata}. It changes
 * only by {@link Transformation#execute}, which returns a new value one epoch later.
 *
 * <p>Placement during a membership change follows CEP-21 (and Cassandra's pending ranges before it): the
 * quorums of the old and the new placement must intersect at every step, so writes go to the old and the
 * new replicas ({@link #writePlacement()}) and reads use the old ones until the change finishes
 * ({@link #readPlacement()}).
 *
 * <p>Construction throws {@link IllegalArgumentException} for a negative epoch or factor, a member filed
 * under another id, or an id not below {@code nextNodeId}.
 *
 * @param clusterId         the cluster's id; {@link #NO_CLUSTER} before the cluster is initialized
 * @param epoch             0 before initialization, + 1 per applied transformation
 * @param replicationFactor replicas per key, at least 1 once initialized; 0 before
 * @param nextNodeId        the id the next joining or replacing node gets, at least 1; ids are never reused
 * @param members           every member by id, LEFT ones included (kept so that an id's history stays
 *                          readable); copied, and unmodifiable
 * @param voters            the ids of the members whose metadata (Raft) servers are the voters of the metadata
 *                          group, as of the last transformation that changed them: INITIALIZE's founders, then
 *                          each replacement of a voter in the replaced voter's place ({@link
 *                          Transformation.FinishReplace}). Empty before INITIALIZE, and in metadata decoded from
 *                          format 1, which did not record them (its voters were the founders); copied, and
 *                          unmodifiable
 */
public record ClusterMetadata(
        UUID clusterId,
        long epoch,
        int replicationFactor,
        int nextNodeId,
        SortedMap<Integer, Member> members,
        SortedSet<Integer> voters) {

    /** The cluster id of metadata that no INITIALIZE has set. */
    public static final UUID NO_CLUSTER = new UUID(0, 0);

    /** The metadata before anything is applied: epoch 0, no cluster, no members. */
    public static final ClusterMetadata EMPTY = new ClusterMetadata(NO_CLUSTER, 0, 0, 1, new TreeMap<>());

    /** Metadata with no voters recorded (before INITIALIZE, or as format 1 had it). */
    public ClusterMetadata(
            UUID clusterId, long epoch, int replicationFactor, int nextNodeId, SortedMap<Integer, Member> members) {
        this(clusterId, epoch, replicationFactor, nextNodeId, members, new TreeSet<>());
    }

    public ClusterMetadata {
        Objects.requireNonNull(clusterId, "clusterId");
        members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        voters = Collections.unmodifiableSortedSet(new TreeSet<>(voters));
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
        if (replicationFactor < 0) {
            throw new IllegalArgumentException("replication factor must be >= 0, got " + replicationFactor);
        }
        if (nextNodeId < 1) {
            throw new IllegalArgumentException("next node id must be >= 1, got " + nextNodeId);
        }
        for (var entry : members.entrySet()) {
            Member member = entry.getValue();
            if (entry.getKey() != member.id()) {
                throw new IllegalArgumentException("member " + member.id() + " is filed under id " + entry.getKey());
            }
            if (member.id() >= nextNodeId) {
                throw new IllegalArgumentException(
                        "member id " + member.id() + " is not below next node id " + nextNodeId);
            }
        }
        for (int voter : voters) {
            if (!members.containsKey(voter)) {
                throw new IllegalArgumentException("voter " + voter + " is not a member");
            }
        }
    }

    /** Whether an INITIALIZE has been applied. */
    public boolean isInitialized() {
        return !clusterId.equals(NO_CLUSTER);
    }

    /** The member with this id, LEFT ones included. */
    public Optional<Member> member(int id) {
        return Optional.ofNullable(members.get(id));
    }

    /** The live (not LEFT) member with this URL. */
    public Optional<Member> liveMemberWithUrl(String url) {
        return members.values().stream()
                .filter(m -> m.state().isLive() && m.url().equals(url))
                .findFirst();
    }

    /** The members in this state, by ascending id. */
    public List<Member> inState(MemberState state) {
        return members.values().stream().filter(m -> m.state() == state).toList();
    }

    /** The number of NORMAL members. */
    public int normalCount() {
        return (int) members.values().stream()
                .filter(m -> m.state() == MemberState.NORMAL)
                .count();
    }

    /**
     * The member mid-way through a membership change (JOINING, LEAVING or REPLACING), if any. At most one
     * change runs at a time (see {@link Transformation}).
     */
    public Optional<Member> changeInProgress() {
        return members.values().stream().filter(m -> m.state().isTransient()).findFirst();
    }

    /**
     * The old placement, which reads use: NORMAL and LEAVING members (a leaving node holds its data until its
     * decommission finishes; a joining or replacing node has not streamed yet). A replaced node stays NORMAL
     * until its replacement finishes, so its place in the read placement is kept; it is down, so it simply
     * does not answer, as any down replica.
     */
    public List<Member> readPlacement() {
        return placement(false);
    }

    /**
     * Every node a write must reach: the old placement and the new one, i.e. NORMAL, LEAVING, JOINING and
     * REPLACING members.
     */
    public List<Member> writePlacement() {
        return placement(true);
    }

    private List<Member> placement(boolean withPending) {
        List<Member> out = new ArrayList<>();
        for (Member m : members.values()) {
            switch (m.state()) {
                case NORMAL, LEAVING -> out.add(m);
                case JOINING, REPLACING -> {
                    if (withPending) {
                        out.add(m);
                    }
                }
                case LEFT -> {}
            }
        }
        return List.copyOf(out);
    }

    /** Whether the voters are recorded: false before INITIALIZE and for metadata decoded from format 1. */
    public boolean votersRecorded() {
        return !voters.isEmpty();
    }

    /** Whether the member with this id holds a voter's place in the metadata group. */
    public boolean isVoter(int id) {
        return voters.contains(id);
    }

    /** This metadata with the member put in (added or replacing the one with its id). */
    ClusterMetadata with(Member member) {
        SortedMap<Integer, Member> next = new TreeMap<>(members);
        next.put(member.id(), member);
        return new ClusterMetadata(
                clusterId, epoch, replicationFactor, Math.max(nextNodeId, member.id() + 1), next, voters);
    }

    ClusterMetadata withEpoch(long newEpoch) {
        return new ClusterMetadata(clusterId, newEpoch, replicationFactor, nextNodeId, members, voters);
    }

    ClusterMetadata withReplicationFactor(int factor) {
        return new ClusterMetadata(clusterId, epoch, factor, nextNodeId, members, voters);
    }

    /** This metadata with these voters (ids of members). */
    public ClusterMetadata withVoters(java.util.Set<Integer> ids) {
        return new ClusterMetadata(clusterId, epoch, replicationFactor, nextNodeId, members, new TreeSet<>(ids));
    }

    @Override
    public String toString() {
        return "ClusterMetadata[cluster " + clusterId + ", epoch " + epoch + ", rf " + replicationFactor + ", next id "
                + nextNodeId + ", members " + members.values() + ", voters " + voters + "]";
    }
}
