package io.ringbase.cluster.membership;

import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.ReadGate;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's identity and state in its cluster, and the rules that keep a node that lost its data out of
 * read quorums until it has it back.
 *
 * <p>A data directory gets its {@link NodeIdentity} at its first start: a new random incarnation and the
 * state {@link NodeState#PENDING}, also when its engine holds data (a snapshot restored into it, or a
 * version without identities): its peers know whether that data is all it should hold. Every node says hello to every peer ({@link HelloSender}), and a
 * peer remembers the incarnation of each node it has heard from as {@code NORMAL} ({@link PeerMemory}).
 * So a node whose data directory was wiped comes back with an incarnation its peers do not know:
 * <ul>
 *   <li>{@code PENDING} answers no reads. A peer that remembers another incarnation of it makes it
 *       {@code REPLACING}; answers from a majority of the cluster (this node included) that remember none
 *       make it {@code NORMAL} (a new cluster, or a node added to the list).</li>
 *   <li>{@code REPLACING} answers no reads, takes writes, and runs anti-entropy repair against every peer
 *       ({@link StreamFromPeers}) until one run completes against all of them; then {@code NORMAL}. A peer
 *       that is down keeps it {@code REPLACING}: the write it lost may live only there.</li>
 *   <li>{@code NORMAL} turns {@code REPLACING} again if a peer remembers another incarnation of it (it was
 *       wiped while its peers were down).</li>
 * </ul>
 * The state is stored before it takes effect, so a crash mid-replacement resumes it. This is the safety
 * half of Cassandra's node replacement ({@code replace_address}: the new node streams before it serves
 * reads), decided from what the peers remember rather than from an operator's flag.
 *
 * <p>Thread-safe; one background thread says hello and drives the replacement.
 */
public final class LocalMembership implements ReadGate, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalMembership.class);

    /** How often hellos are retried while a peer has not answered in this state, ms. */
    static final long RETRY_MS = 1_000;
    /** How often every peer is greeted again once all have answered, ms. */
    static final long REFRESH_MS = 30_000;
    /** How long one round of hellos waits for its answers, ms. */
    static final long HELLO_WAIT_MS = 5_000;

    private final Path dataDir;
    private final Membership membership;
    private final NodeId self;
    private final List<NodeId> peers;
    private final PeerMemory memory;
    private final TimeSource time;
    private final Object lock = new Object();
    private volatile NodeIdentity identity;
    private final Set<NodeId> answeredNone = new HashSet<>(); // guarded by lock: PENDING peers that know none
    private final Set<NodeId> greeted = new HashSet<>(); // guarded by lock: answered a hello in this state
    private @Nullable Thread worker; // guarded by lock
    private boolean greetNow; // guarded by lock: a new state or a peer that came up, greet without waiting
    private volatile boolean closing;

    private LocalMembership(
            Path dataDir,
            Membership membership,
            Topology topology,
            PeerMemory memory,
            NodeIdentity identity,
            TimeSource time) {
        this.dataDir = dataDir;
        this.membership = membership;
        this.self = topology.self();
        this.peers = topology.nodes().stream().filter(n -> !n.equals(self)).toList();
        this.memory = memory;
        this.identity = identity;
        this.time = time;
    }

    /**
     * Reads this node's identity from {@code dataDir}, or gives it one.
     *
     * @param engineEmpty whether the node's engine holds nothing (a new or wiped data directory); only
     *                    for the log line
     * @throws IdentityMismatchException if the data directory belongs to another cluster name, or its node
     *                                   id is not this node's position in the list
     * @throws IOException               if the identity or the peer memory cannot be read or stored
     */
    public static LocalMembership open(
            Path dataDir, Membership membership, Topology topology, boolean engineEmpty, TimeSource time)
            throws IOException {
        NodeIdentity id = IdentityFile.read(dataDir);
        int position = topology.self().index();
        if (id == null) {
            id = new NodeIdentity(
                    membership.clusterName(),
                    position,
                    new SecureRandom().nextLong(),
                    NodeState.PENDING,
                    time.currentTimeMillis());
            IdentityFile.write(dataDir, id);
            log.info(
                    "data directory {} is node {} of cluster '{}', incarnation {} ({})",
                    dataDir,
                    id.nodeId(),
                    id.clusterName(),
                    id.incarnationHex(),
                    engineEmpty
                            ? "new: it answers reads once its peers say it lost nothing"
                            : "holding data but no identity (restored, or from an older version): it answers reads"
                                    + " once its peers say it missed nothing");
        } else if (!id.clusterName().equals(membership.clusterName())) {
            throw new IdentityMismatchException("data directory " + dataDir + " belongs to cluster '" + id.clusterName()
                    + "', not to '" + membership.clusterName() + "' (--cluster-name)");
        } else if (id.nodeId() != position) {
            throw new IdentityMismatchException("data directory " + dataDir + " is node " + id.nodeId()
                    + " (position " + (id.nodeId() + 1) + " in --cluster when it was created), but --cluster puts "
                    + topology.self() + " at position " + (position + 1)
                    + ": keep every node's position, and add new nodes at the end of the list on every node");
        }
        return new LocalMembership(dataDir, membership, topology, PeerMemory.open(dataDir), id, time);
    }

    /** Starts the background thread that greets the peers and, when needed, streams the data back. */
    public void start(HelloSender hello, StreamFromPeers streaming) {
        Objects.requireNonNull(hello, "hello");
        Objects.requireNonNull(streaming, "streaming");
        synchronized (lock) {
            if (worker != null) {
                throw new IllegalStateException("already started");
            }
            worker = Thread.ofPlatform().name("membership").daemon().start(() -> run(hello, streaming));
        }
    }

    public NodeIdentity identity() {
        return identity;
    }

    public NodeState state() {
        return identity.state();
    }

    public Membership membership() {
        return membership;
    }

    /**
     * Whether this node is a full replica and every peer has answered a hello in that state (so every
     * peer remembers this incarnation): what a test or a tool waits for after starting a cluster.
     */
    public boolean isSettled() {
        synchronized (lock) {
            return identity.state() == NodeState.NORMAL && greeted.size() == peers.size();
        }
    }

    @Override
    public @Nullable String readRefusal() {
        NodeState s = identity.state();
        return s.servesReads()
                ? null
                : s == NodeState.PENDING
                        ? "node is PENDING: a new data directory, waiting for its peers to say it lost nothing"
                        : "node is REPLACING: it lost its data and answers no reads until it has streamed it back";
    }

    /**
     * A peer's hello (the server side): remembers {@code incarnation} of {@code url} if the peer says it is
     * {@code NORMAL}, and answers what this node remembers of it after that.
     *
     * @throws IOException if the peer memory cannot be stored (the hello is refused then)
     */
    public HelloSender.Answer onHello(String url, long incarnation, NodeState state) throws IOException {
        if (state == NodeState.NORMAL && memory.remember(url, incarnation)) {
            log.info("peer {} is a full replica in incarnation {}", url, NodeIdentity.hex(incarnation));
        }
        synchronized (lock) {
            if (peers.stream().anyMatch(p -> p.toString().equals(url) && !greeted.contains(p))) {
                greetNow = true; // a peer that just came up: greet it now rather than at the next retry
                lock.notifyAll();
            }
        }
        Long remembered = memory.incarnationOf(url);
        return remembered == null ? HelloSender.Answer.NONE : new HelloSender.Answer(remembered, true);
    }

    /**
     * What {@code peer} answered to the hello sent as {@code sent}: may move this node to another state.
     *
     * @throws IOException if the new state cannot be stored (the state is unchanged then)
     */
    void onAnswer(NodeId peer, NodeIdentity sent, HelloSender.Answer answer) throws IOException {
        synchronized (lock) {
            NodeIdentity now = identity;
            if (!now.equals(sent)) {
                return; // answered a hello of an earlier state
            }
            if (answer.remembers() && answer.remembered() != now.incarnation()) {
                if (now.state() != NodeState.REPLACING) {
                    log.warn(
                            "this node lost its data: peer {} knew it as incarnation {}, this data directory is {};"
                                    + " it answers no reads until it has streamed its data back from every peer",
                            peer,
                            NodeIdentity.hex(answer.remembered()),
                            now.incarnationHex());
                    setState(NodeState.REPLACING);
                }
                return;
            }
            greeted.add(peer);
            if (now.state() == NodeState.PENDING) {
                answeredNone.add(peer);
                if (answeredNone.size() + 1 >= Topology.quorum(peers.size() + 1)) {
                    log.info(
                            "peers {} know no earlier incarnation of this node: it is a new replica and answers reads",
                            answeredNone);
                    setState(NodeState.NORMAL);
                }
            }
        }
    }

    /** Stores {@code s}, then makes it this node's state; the peers are greeted again in it. */
    private void setState(NodeState s) throws IOException {
        NodeIdentity next = identity.withState(s);
        IdentityFile.write(dataDir, next);
        identity = next;
        greeted.clear();
        answeredNone.clear();
        greetNow = true;
        lock.notifyAll();
    }

    private void run(HelloSender hello, StreamFromPeers streaming) {
        long lastRefresh = time.currentTimeMillis();
        while (!closing) {
            try {
                greet(hello);
                if (identity.state() == NodeState.REPLACING) {
                    replace(streaming);
                }
                synchronized (lock) {
                    long now = time.currentTimeMillis();
                    if (greeted.size() == peers.size() && now - lastRefresh >= REFRESH_MS) {
                        greeted.clear();
                        lastRefresh = now;
                    }
                    if (!closing && !greetNow && identity.state() != NodeState.REPLACING) {
                        lock.wait(greeted.size() == peers.size() ? REFRESH_MS : RETRY_MS);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                log.error("membership: {}; retrying in {} ms", e.toString(), RETRY_MS);
                synchronized (lock) {
                    try {
                        lock.wait(RETRY_MS);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }
    }

    /** Says hello to every peer that has not answered in this state; waits a bounded time for answers. */
    private void greet(HelloSender hello) throws IOException, InterruptedException {
        NodeIdentity sent = identity;
        List<NodeId> targets;
        synchronized (lock) {
            greetNow = false;
            targets = peers.stream().filter(p -> !greeted.contains(p)).toList();
        }
        List<CompletableFuture<HelloSender.Answer>> calls =
                targets.stream().map(p -> hello.hello(p, sent)).toList();
        for (int i = 0; i < targets.size(); i++) {
            try {
                onAnswer(targets.get(i), sent, calls.get(i).get(HELLO_WAIT_MS, TimeUnit.MILLISECONDS));
            } catch (ExecutionException | TimeoutException e) {
                log.debug("hello to {} got no answer: {}", targets.get(i), e.toString());
            }
        }
    }

    /** Streams the data back from every peer; on success this node answers reads again. */
    private void replace(StreamFromPeers streaming) throws IOException, InterruptedException {
        long started = time.currentTimeMillis();
        log.info("replacement: streaming this node's data back from {} (anti-entropy repair)", peers);
        if (streaming.run()) {
            synchronized (lock) {
                setState(NodeState.NORMAL);
            }
            log.info(
                    "replacement complete in {} ms: this node answers reads again", time.currentTimeMillis() - started);
        } else {
            log.warn(
                    "replacement: a repair against some peer did not complete (see the repair log);"
                            + " this node still answers no reads; retrying in {} ms",
                    RETRY_MS * 5);
            pause(RETRY_MS * 5);
        }
    }

    /** Waits {@code ms}, or less if the node closes. */
    private void pause(long ms) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        synchronized (lock) {
            long left;
            while (!closing && (left = deadline - System.nanoTime()) > 0) {
                lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    /** Stops the background thread (a replacement in progress resumes at the next start). */
    @Override
    public void close() {
        closing = true;
        Thread t;
        synchronized (lock) {
            lock.notifyAll();
            t = worker;
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
