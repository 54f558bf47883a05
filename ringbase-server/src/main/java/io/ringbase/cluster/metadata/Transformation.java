package io.ringbase.cluster.metadata;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A change of the cluster metadata, as a command logged and then applied by every server in log order
 * (CEP-21's transformations). Each is a pure function of the current {@link ClusterMetadata}:
 * {@link #execute} validates it and returns the next metadata (epoch + 1) or a one-line rejection that
 * leaves the metadata, epoch included, unchanged.
 *
 * <p>Membership operations take several steps, each a transformation (CEP-21's prepare/start/mid/finish,
 * here start and finish with the streaming in between): join is {@link StartJoin} (JOINING: writes, no
 * reads), streaming, {@link FinishJoin} (NORMAL); decommission is {@link StartDecommission} (LEAVING),
 * streaming, {@link FinishDecommission} (LEFT); replacing a dead or wiped node is {@link StartReplace}
 * (REPLACING: writes, no reads), streaming, {@link FinishReplace}. At most one of these is in progress at a
 * time, as Cassandra required before CEP-21 ({@code cassandra.consistent.rangemovement}): with one moving
 * node, the old and new quorums of every key intersect as long as writes reach both placements.
 *
 * <p>Codes of the kinds are persisted (docs/metadata-format.md, section 3).
 */
public sealed interface Transformation {

    /**
     * Validates this change against {@code current}.
     *
     * @return the reason it cannot apply (one line), or empty when it can
     */
    Optional<String> rejection(ClusterMetadata current);

    /** The change applied to {@code current}, which {@link #rejection} accepted; the epoch is set by the caller. */
    ClusterMetadata applyValid(ClusterMetadata current);

    /** The persisted kind code (docs/metadata-format.md, section 3). */
    int kind();

    /** Applies this change to {@code current} if it is valid there: the next metadata, one epoch later. */
    default Outcome execute(ClusterMetadata current) {
        Optional<String> reason = rejection(current);
        if (reason.isPresent()) {
            return new Outcome.Rejected(current.epoch(), reason.get());
        }
        return new Outcome.Applied(applyValid(current).withEpoch(current.epoch() + 1));
    }

    /**
     * A founding member named in {@link Initialize}.
     *
     * @param url             {@code http://host:port}
     * @param metadataAddress {@code host:port} of its metadata server
     */
    record Founder(String url, String metadataAddress) {
        public Founder {
            Member.checkUrl(url);
            Member.checkMetadataAddress(metadataAddress);
        }
    }

    /**
     * Creates the cluster: its id, replication factor and founding members, which get ids 1..n in the order
     * given and start NORMAL. Valid only once, on empty metadata.
     */
    record Initialize(UUID clusterId, int replicationFactor, List<Founder> founders) implements Transformation {
        /** Most founding members one INITIALIZE may name. */
        public static final int MAX_FOUNDERS = 1024;

        public Initialize {
            Objects.requireNonNull(clusterId, "clusterId");
            founders = List.copyOf(founders);
        }

        @Override
        public int kind() {
            return 1;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            if (current.isInitialized()) {
                return reject(
                        "cluster is already initialized as " + current.clusterId() + " at epoch " + current.epoch());
            }
            if (clusterId.equals(ClusterMetadata.NO_CLUSTER)) {
                return reject("cluster id must not be " + ClusterMetadata.NO_CLUSTER);
            }
            if (founders.isEmpty() || founders.size() > MAX_FOUNDERS) {
                return reject("a cluster needs 1.." + MAX_FOUNDERS + " founding members, got " + founders.size());
            }
            if (replicationFactor < 1 || replicationFactor > founders.size()) {
                return reject("replication factor must be 1.." + founders.size() + " (the founding members), got "
                        + replicationFactor);
            }
            Set<String> urls = new HashSet<>();
            Set<String> addresses = new HashSet<>();
            for (Founder f : founders) {
                if (!urls.add(f.url())) {
                    return reject("founding member url " + f.url() + " is given twice");
                }
                if (!addresses.add(f.metadataAddress())) {
                    return reject("founding member metadata address " + f.metadataAddress() + " is given twice");
                }
            }
            return Optional.empty();
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            ClusterMetadata next =
                    new ClusterMetadata(clusterId, current.epoch(), replicationFactor, 1, new TreeMap<>());
            int id = 1;
            Set<Integer> voters = new HashSet<>();
            for (Founder f : founders) {
                next = next.with(new Member(id, f.url(), f.metadataAddress(), MemberState.NORMAL, id, 0));
                voters.add(id);
                id++;
            }
            return next.withVoters(voters);
        }
    }

    /** Registers a new node and starts its join: it gets the next id and is JOINING (writes, no reads). */
    record StartJoin(String url, String metadataAddress) implements Transformation {
        public StartJoin {
            Member.checkUrl(url);
            Member.checkMetadataAddress(metadataAddress);
        }

        @Override
        public int kind() {
            return 2;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            return firstOf(
                    notInitialized(current),
                    changeInProgress(current),
                    addressesInUse(current, url, metadataAddress, 0));
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            int id = current.nextNodeId();
            return current.with(new Member(id, url, metadataAddress, MemberState.JOINING, id, 0));
        }
    }

    /** Finishes a join once the node has streamed its data: JOINING to NORMAL. */
    record FinishJoin(int nodeId) implements Transformation {
        @Override
        public int kind() {
            return 3;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            return firstOf(notInitialized(current), requireState(current, nodeId, MemberState.JOINING));
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            return current.with(existing(current, nodeId).withState(MemberState.NORMAL));
        }
    }

    /**
     * Starts a decommission: NORMAL to LEAVING. Refused if the NORMAL members left would be fewer than the
     * replication factor.
     */
    record StartDecommission(int nodeId) implements Transformation {
        @Override
        public int kind() {
            return 4;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            return firstOf(
                    notInitialized(current),
                    requireState(current, nodeId, MemberState.NORMAL),
                    changeInProgress(current),
                    keepsReplicationFactor(current, "decommissioning", nodeId));
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            return current.with(existing(current, nodeId).withState(MemberState.LEAVING));
        }
    }

    /** Finishes a decommission once the node's data has streamed to its successors: LEAVING to LEFT. */
    record FinishDecommission(int nodeId) implements Transformation {
        @Override
        public int kind() {
            return 5;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            return firstOf(notInitialized(current), requireState(current, nodeId, MemberState.LEAVING));
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            return current.with(existing(current, nodeId).withState(MemberState.LEFT));
        }
    }

    /**
     * Removes a dead node (Cassandra's {@code removenode}): any live state to LEFT. For a JOINING, LEAVING or
     * REPLACING node this abandons its change (a replaced node stays NORMAL). Removing a NORMAL node is
     * refused while another change is in progress or if it would leave fewer NORMAL members than the
     * replication factor; the remaining replicas restore the factor by repair.
     */
    record RemoveNode(int nodeId) implements Transformation {
        @Override
        public int kind() {
            return 6;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            Optional<String> basic = firstOf(notInitialized(current), live(current, nodeId));
            if (basic.isPresent()) {
                return basic;
            }
            if (existing(current, nodeId).state() == MemberState.NORMAL) {
                return firstOf(changeInProgress(current), keepsReplicationFactor(current, "removing", nodeId));
            }
            return Optional.empty();
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            return current.with(existing(current, nodeId).withState(MemberState.LEFT));
        }
    }

    /**
     * Starts replacing a dead or wiped NORMAL node by a new one (which gets the next id and the replaced
     * node's token, and may have the replaced node's URL and address): the new node is REPLACING, taking
     * writes but counting toward no read quorum until {@link FinishReplace}.
     */
    record StartReplace(int replacedId, String url, String metadataAddress) implements Transformation {
        public StartReplace {
            Member.checkUrl(url);
            Member.checkMetadataAddress(metadataAddress);
        }

        @Override
        public int kind() {
            return 7;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            return firstOf(
                    notInitialized(current),
                    requireState(current, replacedId, MemberState.NORMAL),
                    changeInProgress(current),
                    addressesInUse(current, url, metadataAddress, replacedId));
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            Member replaced = existing(current, replacedId);
            int id = current.nextNodeId();
            return current.with(
                    new Member(id, url, metadataAddress, MemberState.REPLACING, replaced.token(), replacedId));
        }
    }

    /**
     * Finishes a replacement once the new node has streamed: it becomes NORMAL, the replaced node LEFT; if the
     * replaced node was a voter of the metadata group, the replacement is recorded as one in its place (the
     * group's own configuration changed before, when the replacement started).
     */
    record FinishReplace(int nodeId) implements Transformation {
        @Override
        public int kind() {
            return 8;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            return firstOf(notInitialized(current), requireState(current, nodeId, MemberState.REPLACING));
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            Member replacement = existing(current, nodeId);
            Member replaced = existing(current, replacement.replaces());
            ClusterMetadata next =
                    current.with(replaced.withState(MemberState.LEFT)).with(replacement.withState(MemberState.NORMAL));
            if (current.isVoter(replaced.id())) {
                // the replacement asked the group to take it in the replaced voter's place before it
                // streamed (ElasticMembership); this records that
                Set<Integer> voters = new HashSet<>(current.voters());
                voters.remove(replaced.id());
                voters.add(replacement.id());
                next = next.withVoters(voters);
            }
            return next;
        }
    }

    /**
     * Sets the replication factor: 1 up to the number of NORMAL members, not while a membership change is in
     * progress. Existing data reaches a larger factor by repair.
     */
    record SetReplicationFactor(int replicationFactor) implements Transformation {
        @Override
        public int kind() {
            return 9;
        }

        @Override
        public Optional<String> rejection(ClusterMetadata current) {
            Optional<String> basic = firstOf(notInitialized(current), changeInProgress(current));
            if (basic.isPresent()) {
                return basic;
            }
            if (replicationFactor < 1 || replicationFactor > current.normalCount()) {
                return reject("replication factor must be 1.." + current.normalCount() + " (the NORMAL members), got "
                        + replicationFactor);
            }
            if (replicationFactor == current.replicationFactor()) {
                return reject("replication factor is already " + replicationFactor);
            }
            return Optional.empty();
        }

        @Override
        public ClusterMetadata applyValid(ClusterMetadata current) {
            return current.withReplicationFactor(replicationFactor);
        }
    }

    private static Optional<String> reject(String reason) {
        return Optional.of(reason);
    }

    @SafeVarargs
    private static Optional<String> firstOf(Optional<String>... checks) {
        for (Optional<String> check : checks) {
            if (check.isPresent()) {
                return check;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> notInitialized(ClusterMetadata current) {
        return current.isInitialized() ? Optional.empty() : reject("cluster is not initialized");
    }

    private static Optional<String> changeInProgress(ClusterMetadata current) {
        return current.changeInProgress()
                .map(m -> "another membership change is in progress: node " + m.id() + " is " + m.state());
    }

    private static Optional<String> live(ClusterMetadata current, int nodeId) {
        Optional<Member> member = current.member(nodeId);
        if (member.isEmpty()) {
            return reject("no node " + nodeId);
        }
        if (!member.get().state().isLive()) {
            return reject("node " + nodeId + " has already LEFT");
        }
        return Optional.empty();
    }

    private static Optional<String> requireState(ClusterMetadata current, int nodeId, MemberState state) {
        Optional<Member> member = current.member(nodeId);
        if (member.isEmpty()) {
            return reject("no node " + nodeId);
        }
        if (member.get().state() != state) {
            return reject("node " + nodeId + " is " + member.get().state() + ", not " + state);
        }
        return Optional.empty();
    }

    private static Optional<String> keepsReplicationFactor(ClusterMetadata current, String action, int nodeId) {
        int remaining = current.normalCount() - 1;
        if (remaining < current.replicationFactor()) {
            return reject(action + " node " + nodeId + " would leave " + remaining
                    + " NORMAL members, fewer than the replication factor " + current.replicationFactor());
        }
        return Optional.empty();
    }

    /** A live member other than {@code except} already using the URL or the metadata address. */
    private static Optional<String> addressesInUse(ClusterMetadata current, String url, String address, int except) {
        for (Member m : current.members().values()) {
            if (!m.state().isLive() || m.id() == except) {
                continue;
            }
            if (m.url().equals(url)) {
                return reject("url " + url + " is in use by node " + m.id());
            }
            if (m.metadataAddress().equals(address)) {
                return reject("metadata address " + address + " is in use by node " + m.id());
            }
        }
        return Optional.empty();
    }

    private static Member existing(ClusterMetadata current, int nodeId) {
        return current.member(nodeId)
                .orElseThrow(() -> new IllegalStateException("no node " + nodeId + " (validated before)"));
    }
}
