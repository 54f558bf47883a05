package io.ringbase.cluster.wire;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.cluster.rpc.ReplicaCalls;
import io.ringbase.storage.Entry;
import io.ringbase.transport.Transport;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's side of the binary node-to-node protocol (docs/internal-protocol-v2.md): one
 * persistent connection per peer and event loop of the node's shared group, many calls in flight on
 * each, frames written as calls come and flushed once per loop turn, and every call with its own
 * deadline in a per-loop queue drained by one loop task at most every {@link #TICK_MS} (as
 * {@code SpeculationTimers}), not a scheduled task per call.
 *
 * <p>A call returns {@code null} (send it over HTTP) while the peer's connection on the calling loop is
 * not ready: not yet opened, refused, an HTTP-only peer, slow to answer its handshake, or broken (retried
 * after {@link #RETRY_BROKEN_MS}; after handshakes that timed out, that doubled per timeout in a row up to
 * {@link #RETRY_REFUSED_MS}; after a refusal, {@link #RETRY_REFUSED_MS}). A call made off the loops
 * is handed to a loop whose connection is ready. A returned future fails alone: with
 * {@link ReplicaException.Timeout} past its deadline (its late answer is dropped), with
 * {@link ReplicaException.Failed} when the replica answered an error or its connection broke.
 *
 * <p>Thread-safe; each connection is touched by its loop only.
 */
public final class WireClient implements ReplicaCalls, AutoCloseable {

    /** Calls in flight per connection; past it calls go over HTTP. */
    static final int MAX_IN_FLIGHT = 4096;
    /** How long after a broken connection the client tries again, ms. */
    static final long RETRY_BROKEN_MS = 1_000;
    /** How long after a refusal or an HTTP-only answer the client tries again, ms. */
    static final long RETRY_REFUSED_MS = 60_000;
    /** Deadlines are checked this often at most, ms: a call fails up to this late. */
    static final long TICK_MS = 10;
    /** The longest a handshake may take, ms. */
    static final long MAX_HANDSHAKE_MS = 2_000;

    /**
     * A ready connection with nothing read for this long sends a PING (id 0, its answer dropped), ms, so
     * that the replica, which closes connections silent for {@link WireServer#IDLE_TIMEOUT_MS}, keeps a
     * quiet peer's connection open. Every call is answered, so a connection that writes also reads. Read
     * idleness only: Netty's idle handler watches writes by turning each write's void promise into a real
     * one with a listener, two objects per frame.
     */
    static final long KEEPALIVE_MS = 60_000;

    /**
     * Who this node is in a handshake.
     *
     * @param clusterName the cluster's name ({@code --cluster-name})
     * @param selfUrl     this node's URL as in {@code --cluster}
     * @param membership  this node's membership digest (16 hex digits)
     */
    public record Identity(String clusterName, String selfUrl, String membership) {}

    private final long timeoutMs;
    final RequestSigner signer;
    final Identity me;
    final PeerCallStats stats;
    private final List<EventLoop> loops;
    private final Deadlines[] deadlines;
    private final Bootstrap bootstrap;
    private final @Nullable Supplier<SslContext> tls;
    private final ConcurrentHashMap<NodeId, Peer> peers = new ConcurrentHashMap<>();
    private final AtomicInteger nextLoop = new AtomicInteger();
    private volatile LongSupplier epoch = () -> 0;
    private volatile boolean closed;

    /**
     * @param timeoutMs each call's deadline, from the call to its answer, ms; positive
     * @param signer    proves the cluster secret in handshakes ({@link RequestSigner#NONE}: none)
     * @param group     the node's event loops (shared with the HTTP server), not shut down by {@link #close}
     * @param stats     where calls and their ends are counted, beside the HTTP client's
     */
    public WireClient(long timeoutMs, RequestSigner signer, EventLoopGroup group, Identity me, PeerCallStats stats) {
        this(timeoutMs, signer, group, me, stats, null);
    }

    /**
     * As {@link #WireClient(long, RequestSigner, EventLoopGroup, Identity, PeerCallStats)}, below the framing
     * over TLS when {@code tls} is not null: each new connection gets a handler of the context {@code tls}
     * gives then, checking the peer's certificate against the node's host name; the magic and the handshake
     * are written once TLS is up (the handler holds them until then).
     */
    public WireClient(
            long timeoutMs,
            RequestSigner signer,
            EventLoopGroup group,
            Identity me,
            PeerCallStats stats,
            @Nullable Supplier<SslContext> tls) {
        this.tls = tls;
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeoutMs);
        }
        this.timeoutMs = timeoutMs;
        this.signer = signer;
        this.me = me;
        this.stats = stats;
        this.loops = Transport.loops(group);
        this.deadlines = new Deadlines[loops.size()];
        for (int i = 0; i < deadlines.length; i++) {
            deadlines[i] = new Deadlines(loops.get(i));
        }
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(Transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeoutMs, 5_000));
    }

    /** Makes handshakes and later notices carry this node's metadata epoch. */
    public void sendEpoch(LongSupplier source) {
        this.epoch = source;
    }

    long epoch() {
        return epoch.getAsLong();
    }

    long timeoutMs() {
        return timeoutMs;
    }

    long handshakeTimeoutMs() {
        return Math.min(timeoutMs, MAX_HANDSHAKE_MS);
    }

    @Override
    public @Nullable CompletableFuture<Entry> read(NodeId node, byte[] key) {
        return key.length > Entry.MAX_KEY_BYTES ? null : call(node, Call.Kind.READ, key, null);
    }

    @Override
    public @Nullable CompletableFuture<Long> version(NodeId node, byte[] key) {
        return key.length > Entry.MAX_KEY_BYTES ? null : call(node, Call.Kind.VERSION, key, null);
    }

    @Override
    public @Nullable CompletableFuture<Long> write(NodeId node, Entry entry) {
        if (WireFormat.LENGTH_OVERHEAD + WireFormat.entrySize(entry) > WireFormat.MAX_FRAME_BYTES) {
            return null;
        }
        return call(node, Call.Kind.WRITE, null, entry);
    }

    @Override
    public @Nullable CompletableFuture<String> ping(NodeId node) {
        return call(node, Call.Kind.PING, null, null);
    }

    /** A Paxos message, only on a connection of version 2 or later ({@link WireFormat#PAXOS_VERSION}). */
    @Override
    public @Nullable CompletableFuture<byte[]> paxos(NodeId node, byte[] message) {
        if (WireFormat.LENGTH_OVERHEAD + message.length > WireFormat.MAX_FRAME_BYTES) {
            return null;
        }
        return call(node, Call.Kind.PAXOS, message, null);
    }

    private <T> @Nullable CompletableFuture<T> call(
            NodeId node, Call.Kind kind, byte @Nullable [] key, @Nullable Entry entry) {
        if (closed) {
            return null;
        }
        Peer peer = peers.computeIfAbsent(node, Peer::new);
        int loop = currentLoop();
        if (loop >= 0) {
            ClientConnection c = peer.connection(loop);
            if (c == null || !c.acceptsCalls() || (kind == Call.Kind.PAXOS && !c.speaksPaxos())) {
                return null;
            }
            Call call = newCall(node, kind, key, entry);
            c.send(call);
            return call.future();
        }
        int start = nextLoop.getAndIncrement();
        for (int i = 0; i < loops.size(); i++) {
            int l = Math.floorMod(start + i, loops.size());
            ClientConnection c = peer.connections.get(l);
            if (c != null && c.acceptsCalls() && (kind != Call.Kind.PAXOS || c.speaksPaxos())) {
                Call call = newCall(node, kind, key, entry);
                try {
                    loops.get(l).execute(() -> c.send(call));
                } catch (RejectedExecutionException e) {
                    return null; // the loops are shutting down
                }
                return call.future();
            }
        }
        int l = Math.floorMod(start, loops.size());
        try {
            loops.get(l).execute(() -> peer.connection(l)); // opens one for the calls to come
        } catch (RejectedExecutionException e) {
            // shutting down
        }
        return null;
    }

    private Call newCall(NodeId node, Call.Kind kind, byte @Nullable [] key, @Nullable Entry entry) {
        return new Call(node, kind, key, entry, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs), stats);
    }

    private int currentLoop() {
        for (int i = 0; i < loops.size(); i++) {
            if (loops.get(i).inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** The deadline queue of loop {@code loop}. */
    Deadlines deadlines(int loop) {
        return deadlines[loop];
    }

    /** Whether {@code node} has a ready connection on any loop (for tests and status). */
    public boolean connected(NodeId node) {
        Peer peer = peers.get(node);
        if (peer == null) {
            return false;
        }
        for (int i = 0; i < loops.size(); i++) {
            ClientConnection c = peer.connections.get(i);
            if (c != null && c.acceptsCalls()) {
                return true;
            }
        }
        return false;
    }

    /**
     * On loop {@code loop}: a handshake with {@code node} timed out. Returns how long the next try waits, ms:
     * {@link #RETRY_BROKEN_MS} doubled for each timeout in a row before this one, at most
     * {@link #RETRY_REFUSED_MS}.
     */
    long handshakeTimedOut(NodeId node, int loop) {
        Peer peer = peers.get(node);
        if (peer == null) {
            return RETRY_REFUSED_MS;
        }
        int before = peer.handshakeTimeouts[loop];
        peer.handshakeTimeouts[loop] = Math.min(before + 1, 30);
        return handshakeRetryMs(before);
    }

    /** The wait after a handshake timeout that followed {@code timeoutsBefore} others in a row, ms. */
    static long handshakeRetryMs(int timeoutsBefore) {
        return Math.min(RETRY_REFUSED_MS, RETRY_BROKEN_MS << Math.min(timeoutsBefore, 16));
    }

    /** On loop {@code loop}: a connection to {@code node} became ready; the next timeout backs off from the start. */
    void handshakeDone(NodeId node, int loop) {
        Peer peer = peers.get(node);
        if (peer != null) {
            peer.handshakeTimeouts[loop] = 0;
        }
    }

    /** Called by a connection when it ends: the next try waits {@code retryMs}. */
    void ended(NodeId node, int loop, ClientConnection c, long retryMs) {
        Peer peer = peers.get(node);
        if (peer != null && peer.connections.compareAndSet(loop, c, null)) {
            peer.retryAtNanos[loop] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryMs);
        }
    }

    /** One peer's connections, one per loop; a slot is changed only on its loop. */
    private final class Peer {
        final NodeId node;
        final AtomicReferenceArray<ClientConnection> connections = new AtomicReferenceArray<>(loops.size());
        final long[] retryAtNanos = new long[loops.size()]; // each slot touched by its loop only
        final int[] handshakeTimeouts = new int[loops.size()]; // in a row, per loop; touched by its loop only

        Peer(NodeId node) {
            this.node = node;
        }

        /** On loop {@code loop}: its connection, opening one if none and the retry time has come. */
        @Nullable
        ClientConnection connection(int loop) {
            ClientConnection c = connections.get(loop);
            if (c != null || closed || System.nanoTime() - retryAtNanos[loop] < 0) {
                return c;
            }
            ClientConnection opened = new ClientConnection(WireClient.this, node, loop);
            connections.set(loop, opened);
            ChannelFuture f = bootstrap
                    .clone(loops.get(loop))
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (tls != null) {
                                var _ = ch.pipeline()
                                        .addLast("tls", tls.get().newHandler(ch.alloc(), node.host(), node.port()));
                            }
                            ch.pipeline()
                                    .addLast(
                                            "keepalive",
                                            new IdleStateHandler(KEEPALIVE_MS, 0, 0, TimeUnit.MILLISECONDS))
                                    .addLast("frames", new FrameDecoder("client", true))
                                    .addLast("calls", opened);
                        }
                    })
                    .connect(node.host(), node.port());
            f.addListener(done -> {
                if (!done.isSuccess()) {
                    ended(node, loop, opened, RETRY_BROKEN_MS); // down: its calls go over HTTP and fail there
                }
            });
            return opened;
        }
    }

    /**
     * One loop's call deadlines in arrival order (all calls have the same timeout, so the queue is
     * ordered by deadline), drained by one loop task. Used on that loop only.
     */
    static final class Deadlines {
        private final EventLoop loop;
        private final ArrayDeque<Call> queue = new ArrayDeque<>();
        private final Runnable drain = this::drain;
        private boolean armed;

        Deadlines(EventLoop loop) {
            this.loop = loop;
        }

        void add(Call call) {
            Call head;
            while ((head = queue.peek()) != null && head.isDone()) {
                queue.poll(); // answers come about in order: the queue stays about as long as the calls in flight
            }
            queue.add(call);
            if (!armed) {
                arm(call.deadlineNanos - System.nanoTime());
            }
        }

        private void arm(long delayNanos) {
            armed = true;
            try {
                var _ = loop.schedule(
                        drain, Math.max(delayNanos, TimeUnit.MILLISECONDS.toNanos(TICK_MS)), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                armed = false; // shutting down: the connections' close fails the calls
            }
        }

        private void drain() {
            armed = false;
            long now = System.nanoTime();
            Call head;
            while ((head = queue.peek()) != null && (head.isDone() || head.deadlineNanos - now <= 0)) {
                queue.poll();
                ClientConnection c = head.connection;
                if (!head.isDone() && c != null) {
                    c.timeOut(head);
                }
            }
            if (head != null) {
                arm(head.deadlineNanos - now);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Peer peer : List.copyOf(peers.values())) {
            for (int i = 0; i < loops.size(); i++) {
                ClientConnection c = peer.connections.get(i);
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    static ReplicaException.Failed failed(NodeId node, String what) {
        return new ReplicaException.Failed(node, what, null);
    }
}
