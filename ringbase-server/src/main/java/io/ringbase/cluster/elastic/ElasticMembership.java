package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.metadata.MetadataCodec;
import io.ringbase.cluster.metadata.MetadataFormatException;
import io.ringbase.cluster.metadata.MetadataOptions;
import io.ringbase.cluster.metadata.MetadataService;
import io.ringbase.cluster.metadata.Transformation;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.rpc.MetadataClient;
import io.ringbase.cluster.rpc.MetadataEndpoint;
import io.ringbase.os.ThreadPriority;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.tls.PeerKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's membership as the cluster metadata log has it (CEP-21's transactional cluster metadata): which
 * nodes hold which keys at the latest epoch, this node's state in that, and the membership changes this
 * node drives (its own join, its own decommission).
 *
 * <p>A founding node (one of the {@code --cluster} list started with {@code --metadata-port-offset}) runs a
 * replica of the log ({@link MetadataService}, a Raft group of the founding nodes) and initializes it with
 * the list; the replacement of a founding node takes its place in the group ({@link #replacingVoter}); any
 * other node that joined later follows the log through the voters ({@link FollowedMetadataLog}). Every
 * new epoch moves the coordinator to its placement ({@link Placements}); requests never wait for the log.
 *
 * <p>Reads are refused while this node is JOINING or REPLACING (it has not streamed its keys yet) or LEFT.
 * Thread-safe.
 */
public final class ElasticMembership implements ReadGate, MetadataEndpoint, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ElasticMembership.class);

    private final MetadataLog metadataLog;
    private final NodeId self;
    private final int selfId;
    private final boolean inGroup;
    private final ExecutorService background;
    private volatile @Nullable Coordinator coordinator;
    private volatile @Nullable Function<NodeId, Replica> newReplica;
    private volatile boolean closing;
    private volatile @Nullable MoveContext moves;
    private volatile @Nullable ClusterMetadata seen; // the metadata of the last placement taken
    private volatile MoveStatus move = MoveStatus.NONE;
    private final AtomicBoolean moving = new AtomicBoolean();

    private ElasticMembership(MetadataLog metadataLog, NodeId self, boolean inGroup, ExecutorService background) {
        this.metadataLog = metadataLog;
        this.self = self;
        this.selfId = self.index() + 1;
        this.inGroup = inGroup;
        this.background = background;
        metadataLog.addListener(this::moved);
    }

    /**
     * The membership of a founding node: starts its replica of the metadata log (the Raft group of the
     * founding nodes, each at its HTTP port plus {@code portOffset}, storage in {@code <data-dir>/metadata})
     * and, in the background, initializes the log with the founding list if no founding node has yet.
     *
     * @param tls mutual TLS on the metadata port (the node's {@code https://} URLs), or {@code null}: plain
     * @throws IOException if the metadata server cannot start (port in use, damaged storage)
     */
    public static ElasticMembership founding(Topology founders, int portOffset, Path dataDir, @Nullable PeerKeys tls)
            throws IOException {
        Map<Integer, String> peers = new LinkedHashMap<>();
        for (NodeId n : founders.nodes()) {
            peers.put(n.index() + 1, metadataAddress(n, portOffset));
        }
        MetadataService service = MetadataService.start(
                MetadataOptions.of(founders.self().index() + 1, peers, dataDir.resolve("metadata"))
                        .withTls(tls));
        ExecutorService background = Executors.newCachedThreadPool(
                r -> Thread.ofPlatform().daemon().name("ringbase-elastic").unstarted(r));
        ElasticMembership m = new ElasticMembership(new RaftMetadataLog(service), founders.self(), true, background);
        background.execute(() -> m.initialize(founders, portOffset));
        return m;
    }

    /**
     * The membership of a node outside the metadata group, following the log from {@code initial} (what
     * {@link JoinBootstrap} fetched).
     */
    public static ElasticMembership following(MetadataClient client, NodeId self, ClusterMetadata initial) {
        ExecutorService background = Executors.newCachedThreadPool(
                r -> Thread.ofPlatform().daemon().name("ringbase-elastic").unstarted(r));
        FollowedMetadataLog followed = new FollowedMetadataLog(client, self.toString(), initial, background);
        ElasticMembership m = new ElasticMembership(followed, self, false, background);
        followed.start();
        return m;
    }

    /**
     * Whether the node {@code self} of {@code m} holds a voter's place in the metadata group: it is a recorded
     * voter, or it is replacing one (it takes the replaced voter's place as its replacement starts).
     */
    public static boolean holdsVoterPlace(ClusterMetadata m, NodeId self) {
        Member me = m.member(self.index() + 1).orElse(null);
        if (me == null || !me.state().isLive()) {
            return false;
        }
        return m.isVoter(me.id()) || (me.state() == MemberState.REPLACING && m.isVoter(me.replaces()));
    }

    /**
     * The membership of a node that joined with {@code --replace} in a voter's place, or such a node
     * restarted: it runs a metadata server at its own metadata address ({@code <data-dir>/metadata}). While it
     * is REPLACING, it first has the group take it as a voter in the replaced node's place, before it streams
     * any key, in two configuration changes through the leader (Ratis's {@code setConfiguration}, each by joint
     * consensus): the replaced voter leaves, then this node's new server (empty storage, a new peer id
     * {@code node-<id>}) joins once the leader has caught it up from its log or a snapshot. The group is back to
     * its full count of voters in seconds, whatever the streaming takes. FINISH_REPLACE then records it among
     * the voters of the metadata. Asked again at every start until then; setting the configuration the group
     * already has changes nothing.
     *
     * @param joined what {@link JoinBootstrap} fetched: this node is a member of it, and
     *               {@link #holdsVoterPlace} holds
     * @param tls    mutual TLS on the metadata port, or {@code null}: plain (see {@link #founding})
     * @throws IOException if the metadata server cannot start, or the group does not take it as a voter in
     *                     time (nothing stays open; a restart asks again)
     */
    public static ElasticMembership replacingVoter(
            NodeId self, ClusterMetadata joined, Path dataDir, @Nullable PeerKeys tls) throws IOException {
        MetadataService service = VoterPlace.take(self, joined, dataDir, tls);
        ExecutorService background = Executors.newCachedThreadPool(
                r -> Thread.ofPlatform().daemon().name("ringbase-elastic").unstarted(r));
        return new ElasticMembership(new RaftMetadataLog(service), self, true, background);
    }

    /** {@code host:(port + offset)}: where a founding node's metadata server listens. */
    static String metadataAddress(NodeId node, int portOffset) {
        int port = node.port() + portOffset;
        if (port > 65535) {
            throw new IllegalArgumentException("metadata port " + node.port() + " + " + portOffset + " of " + node
                    + " is above 65535: pick a smaller --metadata-port-offset");
        }
        return node.host() + ":" + port;
    }

    /** Submits the INITIALIZE of the founding list until it or another founding node's is committed. */
    private void initialize(Topology founders, int portOffset) {
        List<Transformation.Founder> list = new ArrayList<>();
        for (NodeId n : founders.nodes()) {
            list.add(new Transformation.Founder(n.toString(), metadataAddress(n, portOffset)));
        }
        Transformation init = new Transformation.Initialize(UUID.randomUUID(), founders.replicationFactor(), list);
        while (!closing && !metadataLog.current().isInitialized()) {
            try {
                var _ = metadataLog.submit(init).get();
                log.info(
                        "cluster metadata initialized with {} founding nodes, rf {}",
                        list.size(),
                        founders.replicationFactor());
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (!metadataLog.current().isInitialized()) {
                    log.info("initializing the cluster metadata: {}; retrying", e.getMessage());
                }
            }
        }
    }

    /**
     * Starts moving {@code coordinator} with the log: it gets the placement of every newer epoch, and a node
     * it has no replica of gets one from {@code newReplica}.
     */
    public void attach(Coordinator coordinator, Function<NodeId, Replica> newReplica) {
        this.newReplica = newReplica;
        this.coordinator = coordinator;
        moved(metadataLog.current());
    }

    private void moved(ClusterMetadata metadata) {
        Coordinator c = coordinator;
        Function<NodeId, Replica> replicas = newReplica;
        if (c == null || replicas == null || !metadata.isInitialized()) {
            return;
        }
        try {
            Placement before = c.placement();
            Placement after = Placements.of(metadata, self);
            c.place(after, replicas);
            ClusterMetadata previous = seen;
            seen = metadata;
            rebuildAfterRemoval(previous, metadata, before, after);
        } catch (RuntimeException e) {
            log.error("cannot take the placement of epoch {}: {}", metadata.epoch(), e.getMessage(), e);
        }
    }

    /**
     * Starts a rebuild if a NORMAL node was removed between {@code previous} and {@code metadata} (not a
     * decommission, which streamed its keys away before it left) and this node holds keys.
     */
    private void rebuildAfterRemoval(
            @Nullable ClusterMetadata previous, ClusterMetadata metadata, Placement before, Placement after) {
        MoveContext context = moves;
        if (previous == null || context == null || selfState() != MemberState.NORMAL) {
            return;
        }
        for (Member was : previous.members().values()) {
            Member now = metadata.member(was.id()).orElse(null);
            boolean removed = was.state() == MemberState.NORMAL
                    && now != null
                    && now.state() == MemberState.LEFT
                    && previous.inState(MemberState.REPLACING).stream().noneMatch(r -> r.replaces() == was.id());
            if (removed && before.current().contains(Placements.nodeOf(was))) {
                NodeId gone = Placements.nodeOf(was);
                log.info(
                        "node {} was removed at epoch {}: streaming its keys this node now replicates",
                        gone,
                        metadata.epoch());
                background.execute(() -> rebuildInBackground(context, before, after, gone));
            }
        }
    }

    /**
     * Runs {@link RebuildDriver} on a thread of its own at {@code SCHED_IDLE}, as a join's streams do, so
     * that the rebuild takes only CPU time client requests leave idle; waits for it, and interrupts it when
     * this (pooled, normal-priority) thread is interrupted at close.
     */
    private void rebuildInBackground(MoveContext context, Placement before, Placement after, NodeId gone) {
        Thread rebuild = ThreadPriority.background("ringbase-rebuild", ThreadPriority.IDLE)
                .newThread(() -> RebuildDriver.run(this, context, before, after, gone, s -> move = s));
        rebuild.start();
        try {
            rebuild.join();
        } catch (InterruptedException e) {
            rebuild.interrupt();
            Thread.currentThread().interrupt();
        }
    }
    /**
     * Removes a dead node from the cluster (Cassandra's {@code removenode}): it leaves every placement at
     * once, and each node that takes over some of its keys streams them from their other replicas.
     *
     * @return the epoch of the removal
     * @throws IllegalArgumentException if the log rejects it (no such live node, a change in progress, fewer
     *                                  NORMAL nodes than the replication factor would remain)
     * @throws IllegalStateException    if it cannot be committed
     */
    public long remove(int nodeId) {
        try {
            return metadataLog
                    .submit(new Transformation.RemoveNode(nodeId))
                    .get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .epoch();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException rejected) {
                throw rejected;
            }
            throw new IllegalStateException(
                    "removing node " + nodeId + ": " + e.getCause().getMessage(), e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("removing node " + nodeId + " was not committed within 30 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while removing node " + nodeId, e);
        }
    }

    /**
     * Gives this node what the changes it drives need, and resumes its join if it is JOINING (a join that
     * a crash interrupted goes on from the streams' cursors).
     */
    public void start(MoveContext context) {
        this.moves = context;
        MemberState state = selfState();
        if (state == MemberState.JOINING || state == MemberState.REPLACING) {
            drive(() -> JoinDriver.run(this, context, s -> move = s));
        }
    }

    /**
     * Starts this node's decommission in the background: LEAVING, its keys streamed to their next owners,
     * then LEFT. Progress in {@link #moveStatus()}.
     *
     * @throws IllegalStateException if this node is not NORMAL or LEAVING, a change it drives is running, or
     *                               it has not started
     */
    public void decommission() {
        MoveContext context = moves;
        if (context == null) {
            throw new IllegalStateException("the node has not finished starting");
        }
        MemberState state = selfState();
        if (state != MemberState.NORMAL && state != MemberState.LEAVING) {
            throw new IllegalStateException("this node is " + state + "; only a NORMAL node can be decommissioned");
        }
        if (!drive(() -> DecommissionDriver.run(this, context, s -> move = s))) {
            throw new IllegalStateException("a " + move.kind() + " driven by this node is running already");
        }
    }

    /** Runs one change at a time; false if one is running. */
    private boolean drive(Runnable change) {
        if (!moving.compareAndSet(false, true)) {
            return false;
        }
        background.execute(() -> {
            try {
                change.run();
            } finally {
                moving.set(false);
            }
        });
        return true;
    }

    /**
     * Drops from {@code engine} the keys this node replicates in neither ring of the current placement
     * (Cassandra's {@code nodetool cleanup}): after a join moved some of its keys to the new node.
     *
     * @return entries dropped
     * @throws IllegalStateException while a membership change is in progress, or while a live member has not
     *                               reached this node's epoch (a coordinator still on an older one may read here)
     * @throws IOException           if the engine fails
     */
    public long cleanup(ManagedEngine engine) throws IOException {
        MoveContext context = moves;
        if (context == null) {
            throw new IllegalStateException("the node has not finished starting");
        }
        ClusterMetadata m = metadataLog.current();
        Placement p = Placements.of(m, self);
        if (p.changing()) {
            throw new IllegalStateException(
                    "a membership change is in progress at epoch " + m.epoch() + ": clean up once it has finished");
        }
        for (Member member : m.members().values()) {
            if (member.state().isLive() && member.id() != selfId) {
                long theirs = Changes.epochOf(context, member.url());
                if (theirs < m.epoch()) {
                    throw new IllegalStateException(
                            "node " + member.url() + " is at epoch " + theirs + ", this node at " + m.epoch()
                                    + ": it may still read here; clean up once it has caught up");
                }
            }
        }
        int rf = p.replicationFactor();
        Ring ring = p.current();
        long dropped = engine.cleanup(key -> ring.isReplica(Ring.keyHash(key), rf, self));
        log.info("cleanup at epoch {}: {} entries of keys this node no longer replicates dropped", m.epoch(), dropped);
        return dropped;
    }

    /** Progress of the change this node drives (its join or decommission). */
    public MoveStatus moveStatus() {
        return move;
    }

    /** The newest metadata this node knows. */
    public ClusterMetadata metadata() {
        return metadataLog.current();
    }

    /**
     * The voters of the metadata group's Raft configuration as this node's metadata server has it (node id to
     * metadata address); empty on a node outside the group.
     *
     * @throws IOException if the server has closed
     */
    public Map<Integer, String> configuredVoters() throws IOException {
        return metadataLog.configuredVoters();
    }

    /** This node's member record at the newest epoch, if it has one. */
    public Optional<Member> selfMember() {
        return metadataLog.current().member(selfId);
    }

    /** This node's state at the newest epoch; NORMAL before the log is initialized (a founding node). */
    public MemberState selfState() {
        return selfMember().map(Member::state).orElse(MemberState.NORMAL);
    }

    /** {@link #selfState()}'s name: NORMAL, JOINING, LEAVING, REPLACING or LEFT. */
    public String selfStateName() {
        return selfState().name();
    }

    /** This node's id in the metadata (its node index + 1). */
    public int selfId() {
        return selfId;
    }

    public NodeId self() {
        return self;
    }

    /** The log, for the membership changes this node drives. */
    MetadataLog log() {
        return metadataLog;
    }

    /** A peer showed {@code epoch}: catch up if it is newer. */
    @Override
    public void sawEpoch(long epoch) {
        metadataLog.sawEpoch(epoch);
    }

    /** The current epoch (0 before the log is initialized). */
    public long epoch() {
        return metadataLog.current().epoch();
    }

    @Override
    public @Nullable String readRefusal() {
        return switch (selfState()) {
            case NORMAL, LEAVING -> null;
            case JOINING -> "this node is joining: it answers reads once it has streamed its keys";
            case REPLACING -> "this node is replacing another: it answers reads once it has streamed its keys";
            case LEFT -> "this node has left the cluster";
        };
    }

    @Override
    public byte[] current() {
        ClusterMetadata m = metadataLog.current();
        if (!m.isInitialized()) {
            throw new IllegalStateException("the cluster metadata is not initialized yet");
        }
        return MetadataCodec.encode(m);
    }

    @Override
    public CompletableFuture<byte[]> submit(byte[] transformation) {
        // a node outside the group forwards to the voters the metadata records (they never forward: no loop);
        // without recorded voters (metadata of format 1) it cannot tell them from the other followers
        if (!inGroup && !metadataLog.current().votersRecorded()) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(self + " is not of the metadata group: submit through a voter"));
        }
        Transformation change;
        try {
            change = MetadataCodec.decodeTransformation(transformation);
        } catch (MetadataFormatException e) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(e.getMessage(), e));
        }
        return metadataLog.submit(change).thenApply(MetadataCodec::encode);
    }

    /** Runs {@code task} on this membership's background threads (closing stops them). */
    void runInBackground(Runnable task) {
        background.execute(task);
    }

    boolean closing() {
        return closing;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        background.shutdownNow();
        metadataLog.close();
    }
}
