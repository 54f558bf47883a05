package io.ringbase.cluster.metadata;

import io.ringbase.tls.PeerKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server of the metadata group and a client of it: an Apache Ratis {@code RaftServer} (Netty transport,
 * or gRPC with mutual TLS when {@link MetadataOptions#tls()} is set: {@link MetadataTransport}; on its own
 * TCP port, the {@code host:port} of this node in {@link MetadataOptions#peers()}) running a
 * {@link MetadataStateMachine}, and a {@code RaftClient} that submits {@link Transformation}s to the group's
 * leader. Ratis types stay inside: the API speaks {@link ClusterMetadata} and {@link Transformation}.
 *
 * <p>{@link #current()} is the last metadata this server applied and never blocks: data requests must never
 * wait for the metadata quorum. {@link #submit} needs a quorum and fails within
 * {@link MetadataOptions#requestTimeoutMs()}.
 *
 * <p>{@link #start} starts the server (formatting its storage on first use, recovering it afterwards) and
 * returns once it listens; a leader is elected in the background. A failed start closes whatever it had
 * opened. {@link #close} releases everything (server, client, their threads and the directory lock).
 */
public final class MetadataService implements AutoCloseable {

    /** The metadata group's id, the same on every node; its storage is the directory of this name. */
    public static final UUID GROUP_ID = UUID.fromString("0e5d3a0c-5b52-3e0a-9a9f-4b1c1c0d6d01");

    /** Delay between the client's attempts to find the leader, ms. */
    private static final long RETRY_SLEEP_MS = 100;

    /**
     * Longest wait of one client attempt on one server, ms (Ratis's default is 3 s): an attempt in flight to a
     * server that stops is answered only by this timeout, and the next attempt goes to another server. A
     * retried attempt is not applied twice (Ratis's retry cache).
     */
    private static final long MAX_ATTEMPT_TIMEOUT_MS = 1_000;

    /**
     * Election timeout range, ms. Ratis's default (150-300 ms) made leaders step down on a loaded 2-core machine
     * (a GC pause or a busy core is enough); the metadata log values a stable leader over a fast failover.
     */
    private static final long ELECTION_TIMEOUT_MIN_MS = 1_000;

    private static final long ELECTION_TIMEOUT_MAX_MS = 2_000;

    /** Election timeout range of a server's first election, ms: a new group elects its first leader quickly. */
    private static final long FIRST_ELECTION_TIMEOUT_MIN_MS = 150;

    private static final long FIRST_ELECTION_TIMEOUT_MAX_MS = 300;

    private static final Logger log = LoggerFactory.getLogger(MetadataService.class);

    private final MetadataOptions options;
    private final RaftServer server;
    private final RaftClient client;
    private final MetadataStateMachine stateMachine;
    private final Listeners listeners;

    private MetadataService(
            MetadataOptions options,
            RaftServer server,
            RaftClient client,
            MetadataStateMachine stateMachine,
            Listeners listeners) {
        this.options = options;
        this.server = server;
        this.client = client;
        this.stateMachine = stateMachine;
        this.listeners = listeners;
    }

    /**
     * Starts this node's metadata server and client.
     *
     * @throws IOException if the directory cannot be created or locked, the storage cannot be read (a damaged
     *                     snapshot names its file), or the port cannot be bound; nothing stays open then
     */
    public static MetadataService start(MetadataOptions options) throws IOException {
        return start(options, options.peers().keySet());
    }

    /**
     * Starts this node's metadata server and client.
     *
     * @param formatOneVoters the group's voters should its latest snapshot be of format 1, which did not record
     *                        them (docs/metadata-format.md, section 4): the founding members' ids
     * @throws IOException if the directory cannot be created or locked, the storage cannot be read (a damaged
     *                     snapshot names its file), or the port cannot be bound; nothing stays open then
     */
    public static MetadataService start(MetadataOptions options, Set<Integer> formatOneVoters) throws IOException {
        Files.createDirectories(options.directory());
        RaftGroupId groupId = RaftGroupId.valueOf(GROUP_ID);
        Map<Integer, String> others = new TreeMap<>(options.peers());
        others.remove(options.selfId());
        // A new voter starts with no configuration (Ratis takes a group without peers, not one without this
        // server): it waits for the leader to add it and never campaigns. Its client asks the others.
        RaftGroup group = options.newVoter()
                ? RaftGroup.valueOf(groupId)
                : RaftGroup.valueOf(groupId, Voters.raftPeers(options.peers()));
        RaftGroup seed = options.newVoter() ? RaftGroup.valueOf(groupId, Voters.raftPeers(others)) : group;
        RaftProperties properties = properties(options);
        Parameters parameters = MetadataTransport.parameters(options.tls());
        requireBindable(options);
        boolean existing = Files.isDirectory(options.directory().resolve(GROUP_ID.toString()));

        Listeners listeners = new Listeners();
        MetadataStateMachine stateMachine = new MetadataStateMachine(listeners::publish, formatOneVoters);
        RaftServer server = null;
        RaftClient client = null;
        try {
            server = RaftServer.newBuilder()
                    .setServerId(Voters.peerId(options.selfId()))
                    .setGroup(group)
                    .setStateMachine(stateMachine)
                    .setProperties(properties)
                    .setParameters(parameters)
                    .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                    .build();
            server.start();
            // a recovered server's configuration is the one its storage holds, which may differ from the seed
            // (a voter replaced since): its client asks those servers for the leader
            Collection<RaftPeer> configured =
                    server.getDivision(groupId).getRaftConf().getCurrentPeers();
            RaftGroup known = configured.isEmpty() ? seed : RaftGroup.valueOf(groupId, configured);
            client = newClient(known, properties, parameters, options.tls(), options.requestTimeoutMs());
            log.info(
                    "metadata server {} started on {}{} ({} storage in {}), voters {}{}",
                    options.selfId(),
                    options.selfAddress(),
                    options.tls() == null ? "" : " (mutual TLS)",
                    existing ? "recovered" : "new",
                    options.directory(),
                    Voters.describe(known.getPeers()),
                    known.getPeers().stream().anyMatch(p -> p.getId().equals(Voters.peerId(options.selfId())))
                            ? ""
                            : "; not a voter yet: waiting to be added");
            return new MetadataService(options, server, client, stateMachine, listeners);
        } catch (IOException | RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            IOException failure = new IOException(
                    "metadata server " + options.selfId() + " could not start on " + options.selfAddress() + " in "
                            + options.directory() + ": " + e.getMessage()
                            + (root == e ? "" : " (" + root.getMessage() + ")"),
                    e);
            closeAfterFailedStart(client, server, failure);
            throw failure;
        }
    }

    /**
     * Fails before anything is opened if this server's port cannot be bound. Ratis cannot release all it
     * opened when its own bind fails (see {@link #closeAfterFailedStart}: the RPC service's event loop and
     * two executor threads stay), so the common case, a port in use, is caught here; only a port taken
     * between this check and Ratis's bind still goes that way.
     */
    private static void requireBindable(MetadataOptions options) throws IOException {
        String self = options.selfAddress();
        int colon = self.lastIndexOf(':');
        String host = unbracket(self.substring(0, colon));
        int port = Integer.parseInt(self.substring(colon + 1));
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new IOException(
                    "metadata server " + options.selfId() + " cannot listen on " + self + ": " + e.getMessage(), e);
        }
    }

    private static void closeAfterFailedStart(
            @Nullable RaftClient client, @Nullable RaftServer server, Exception failure) {
        if (client != null) {
            try {
                client.close();
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        if (server != null) {
            // Ratis puts a server whose start failed with an IOException (a port in use) back to NEW, and
            // closing a NEW server closes nothing, though its divisions have started and hold the storage
            // lock, threads and JMX beans: close them, and the RPC service, one by one first
            try {
                for (RaftGroupId groupId : server.getGroupIds()) {
                    server.getDivision(groupId).close();
                }
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
            try {
                server.getServerRpc().close();
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
            try {
                server.close();
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    private static RaftClient newClient(
            RaftGroup group,
            RaftProperties properties,
            Parameters parameters,
            @Nullable PeerKeys tls,
            long requestTimeoutMs) {
        return RaftClient.newBuilder()
                .setProperties(properties)
                .setParameters(parameters)
                .setRaftGroup(group)
                .setClientRpc(MetadataTransport.newClientRpc(properties, parameters, tls))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                        // more attempts than fit in the deadline: submit's deadline ends them
                        (int) Math.max(1, 2 * requestTimeoutMs / RETRY_SLEEP_MS), ms(RETRY_SLEEP_MS)))
                .build();
    }

    /**
     * The properties of a client: its transport ({@link MetadataTransport}; Netty over NIO rather than the
     * shaded native epoll when plain: the metadata traffic is a few messages a second, and NIO needs no native
     * library of Ratis's own); one attempt (to one server) waits at most half the request timeout, capped, and
     * submit's own deadline bounds them all.
     */
    private static RaftProperties clientProperties(long requestTimeoutMs, @Nullable PeerKeys tls) {
        RaftProperties p = new RaftProperties();
        MetadataTransport.configureClient(p, tls);
        RaftClientConfigKeys.Rpc.setRequestTimeout(
                p, ms(Math.min(MAX_ATTEMPT_TIMEOUT_MS, Math.max(1, requestTimeoutMs / 2))));
        return p;
    }

    /** The properties of a server and its client: {@link #clientProperties}, and the server's own. */
    private static RaftProperties properties(MetadataOptions options) {
        RaftProperties p = clientProperties(options.requestTimeoutMs(), options.tls());
        String self = options.selfAddress();
        int colon = self.lastIndexOf(':');
        MetadataTransport.configureServer(
                p, unbracket(self.substring(0, colon)), Integer.parseInt(self.substring(colon + 1)), options.tls());
        RaftServerConfigKeys.setStorageDir(p, List.of(options.directory().toFile()));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, options.snapshotEveryEntries());
        RaftServerConfigKeys.Snapshot.setCreationGap(p, Math.min(1024, options.snapshotEveryEntries()));
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        // the log: segments of logSegmentBytes, and those a snapshot covers deleted, so that it stays bounded.
        // Ratis wants its (direct) write buffer to hold the leader's largest batch plus an 8-byte frame, and
        // its defaults are an 8 MiB buffer and a 4 MiB batch; a segment's worth of both is plenty here
        SizeInBytes segment = SizeInBytes.valueOf(options.logSegmentBytes());
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, segment);
        RaftServerConfigKeys.Log.setPreallocatedSize(p, segment);
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, segment);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(options.logSegmentBytes() + 8));
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(1024, options.snapshotEveryEntries()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, ms(ELECTION_TIMEOUT_MIN_MS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, ms(ELECTION_TIMEOUT_MAX_MS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, ms(FIRST_ELECTION_TIMEOUT_MIN_MS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, ms(FIRST_ELECTION_TIMEOUT_MAX_MS));
        return p;
    }

    private static TimeDuration ms(long milliseconds) {
        return TimeDuration.valueOf(milliseconds, TimeUnit.MILLISECONDS);
    }

    private static String unbracket(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * The voters of the group's configuration as this server has it (node id to metadata address): the
     * latest configuration in its log, committed or not; without this server while it has not been added yet.
     *
     * @throws IOException if the server has closed
     */
    public Map<Integer, String> configuredVoters() throws IOException {
        return Voters.describe(
                server.getDivision(RaftGroupId.valueOf(GROUP_ID)).getRaftConf().getCurrentPeers());
    }

    /**
     * Makes {@code voters} (node id to metadata address) the voters of the group, through its leader
     * (Ratis's {@code setConfiguration}): the leader first catches every new server up from its log or its
     * snapshot, then commits the joint configuration (each step needing a majority of the old voters and of
     * the new) and then the new one, Raft's joint consensus. Setting the configuration the group already has
     * succeeds and changes nothing, so a change asked again after a crash is harmless. Blocks until done.
     *
     * @param timeoutMs how long to keep asking, ms
     * @throws MetadataUnavailableException if the group did not take it within {@code timeoutMs} (too few
     *                                      voters reachable, a new server that did not catch up, or another
     *                                      reconfiguration under way); asking again is safe
     * @throws InterruptedException         if interrupted while waiting
     */
    public void setVoters(Map<Integer, String> voters, long timeoutMs) throws InterruptedException {
        Voters.change(client, voters, timeoutMs);
    }

    /**
     * {@link #setVoters(Map, long)} from a node that runs no metadata server (yet): through a client of the
     * servers {@code reachable} (node id to metadata address), which finds the leader among them.
     *
     * @param tls the group's TLS ({@link MetadataOptions#tls()}), or {@code null} if its port is plain
     * @throws MetadataUnavailableException as {@link #setVoters(Map, long)}
     * @throws IOException                  if the client cannot be closed
     */
    public static void setVoters(
            Map<Integer, String> reachable, Map<Integer, String> voters, long timeoutMs, @Nullable PeerKeys tls)
            throws IOException, InterruptedException {
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(GROUP_ID), Voters.raftPeers(reachable));
        long attemptMs = Math.min(timeoutMs, MetadataOptions.DEFAULT_REQUEST_TIMEOUT_MS);
        try (RaftClient alone =
                newClient(group, clientProperties(attemptMs, tls), MetadataTransport.parameters(tls), tls, attemptMs)) {
            Voters.change(alone, voters, timeoutMs);
        }
    }

    /** The options this service runs with. */
    public MetadataOptions options() {
        return options;
    }

    /**
     * The last metadata this server applied: {@link ClusterMetadata#EMPTY} before the first INITIALIZE
     * reaches it. Never blocks and never contacts another server.
     */
    public ClusterMetadata current() {
        return stateMachine.current();
    }

    /**
     * Submits a change to the metadata log and completes once it is committed and applied by the leader.
     *
     * @return a future of the metadata right after the change; it fails with {@link RejectedChangeException}
     *     (the one-line reason) if the change was not valid at its place in the log, or with
     *     {@link MetadataUnavailableException} if no quorum committed it within
     *     {@link MetadataOptions#requestTimeoutMs()} (it may still be committed later)
     */
    public CompletableFuture<ClusterMetadata> submit(Transformation transformation) {
        Message message = Message.valueOf(ByteString.copyFrom(MetadataCodec.encode(transformation)));
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = client.async().send(message);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new MetadataUnavailableException("metadata client failed: " + e.getMessage(), e));
        }
        return reply.orTimeout(options.requestTimeoutMs(), TimeUnit.MILLISECONDS)
                .handle((r, error) -> toOutcome(
                        r, error, "change " + transformation.getClass().getSimpleName()))
                .thenCompose(outcome -> switch (outcome) {
                    case Outcome.Applied applied -> CompletableFuture.completedFuture(applied.metadata());
                    case Outcome.Rejected rejected ->
                        CompletableFuture.failedFuture(
                                new RejectedChangeException(transformation, rejected.epoch(), rejected.reason()));
                });
    }

    /**
     * The metadata as the group's leader has it, read through the leader: what a node fetches when a peer
     * shows it a newer epoch than its own (it may also just {@link #awaitEpoch} it).
     *
     * @return a future that fails with {@link MetadataUnavailableException} if the leader cannot be reached
     *     within {@link MetadataOptions#requestTimeoutMs()}
     */
    public CompletableFuture<ClusterMetadata> fetchLatest() {
        Message query = Message.valueOf(ByteString.copyFrom(MetadataCodec.encodeCurrentQuery()));
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = client.async().sendReadOnly(query);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new MetadataUnavailableException("metadata client failed: " + e.getMessage(), e));
        }
        return reply.orTimeout(options.requestTimeoutMs(), TimeUnit.MILLISECONDS)
                .handle((r, error) -> {
                    RaftClientReply ok = successful(r, error, "metadata query");
                    try {
                        return MetadataCodec.decodeMetadata(
                                ok.getMessage().getContent().toByteArray());
                    } catch (MetadataFormatException e) {
                        throw new MetadataUnavailableException("metadata query answered with " + e.getMessage(), e);
                    }
                });
    }

    /**
     * Completes once this server has applied {@code epoch} (at once if it has): what a node does before acting
     * on a request that carries a newer epoch than its own.
     *
     * @return a future of the applied metadata at {@code epoch} or later; it fails with
     *     {@link MetadataUnavailableException} after {@link MetadataOptions#requestTimeoutMs()}
     */
    public CompletableFuture<ClusterMetadata> awaitEpoch(long epoch) {
        CompletableFuture<ClusterMetadata> reached = new CompletableFuture<>();
        Consumer<ClusterMetadata> listener = metadata -> {
            if (metadata.epoch() >= epoch) {
                reached.complete(metadata);
            }
        };
        listeners.add(listener);
        listener.accept(current()); // an epoch applied before the listener was added
        return reached.orTimeout(options.requestTimeoutMs(), TimeUnit.MILLISECONDS)
                .whenComplete((m, e) -> listeners.remove(listener))
                .exceptionally(e -> {
                    throw new MetadataUnavailableException("epoch " + epoch + " not reached within "
                            + options.requestTimeoutMs() + " ms; this server is at epoch "
                            + current().epoch());
                });
    }

    /**
     * Calls {@code listener} with the new metadata after every change this server applies (and after a
     * snapshot it loads), in epoch order, on Ratis's state machine thread: it must return quickly and never
     * block. An exception it throws is logged and ignored.
     */
    public void addListener(Consumer<ClusterMetadata> listener) {
        listeners.add(listener);
    }

    /** Stops calling {@code listener}. */
    public void removeListener(Consumer<ClusterMetadata> listener) {
        listeners.remove(listener);
    }

    /**
     * Closes the client and the server (which takes a last snapshot), releasing their threads, port and
     * directory lock. Idempotent.
     *
     * @throws IOException if either failed to close (the other is still closed)
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        try {
            client.close();
        } catch (IOException e) {
            failure = e;
        }
        try {
            server.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        log.info(
                "metadata server {} closed at epoch {}",
                options.selfId(),
                current().epoch());
    }

    private static Outcome toOutcome(@Nullable RaftClientReply reply, @Nullable Throwable error, String what) {
        RaftClientReply ok = successful(reply, error, what);
        try {
            return MetadataCodec.decodeOutcome(ok.getMessage().getContent().toByteArray());
        } catch (MetadataFormatException e) {
            throw new MetadataUnavailableException(what + " answered with " + e.getMessage(), e);
        }
    }

    /** The reply if the group answered it successfully; otherwise throws why it did not. */
    private static RaftClientReply successful(@Nullable RaftClientReply reply, @Nullable Throwable error, String what) {
        if (error != null) {
            Throwable cause = unwrap(error);
            // the deadline passed, or (in case it comes first) the client's attempts ran out
            if (cause instanceof TimeoutException || cause instanceof RaftRetryFailureException) {
                throw new MetadataUnavailableException(
                        what + ": no answer from a metadata quorum in time (too few metadata servers reachable,"
                                + " or no leader); it may still be committed later",
                        cause);
            }
            throw new MetadataUnavailableException(what + " failed: " + cause, cause);
        }
        if (reply == null) {
            throw new MetadataUnavailableException(what + ": no reply");
        }
        if (!reply.isSuccess()) {
            throw new MetadataUnavailableException(what + " failed: " + reply.getException(), reply.getException());
        }
        return reply;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** The listeners of one service; {@link #publish} runs on the state machine thread. */
    private static final class Listeners {
        private final List<Consumer<ClusterMetadata>> listeners = new CopyOnWriteArrayList<>();

        void add(Consumer<ClusterMetadata> listener) {
            listeners.add(listener);
        }

        void remove(Consumer<ClusterMetadata> listener) {
            listeners.remove(listener);
        }

        void publish(ClusterMetadata metadata) {
            for (Consumer<ClusterMetadata> listener : listeners) {
                try {
                    listener.accept(metadata);
                } catch (RuntimeException e) {
                    log.warn("a metadata listener failed at epoch {}", metadata.epoch(), e);
                }
            }
        }
    }
}
