package io.ringbase.cluster.rpc;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.logging.LogThrottle;
import io.ringbase.transport.Transport;
import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The non-blocking HTTP/1.1 client for node-to-node calls: Netty's {@link HttpClientCodec} on event
 * loops (native epoll when available), a {@link FixedChannelPool} of keep-alive connections per node
 * and event loop, one request per connection at a time, and a per-call timeout.
 *
 * <p>Given the HTTP server's event loop group, a call made on one of its loops (a request coordinated
 * inline, see {@code HttpServerConfig#inlinePointRequests}) uses that loop's own connections: the
 * request is written, and its answer read and handed to the caller, on the same thread, with no hand-off
 * between threads. Calls from other threads (hints, repair, probes) take the loops in turn.
 *
 * <p>No thread ever waits for an answer: {@link #send} returns a future completed on an event loop.
 * It fails with {@link ReplicaException.Unreachable} when no connection could be made (the request was
 * not sent), {@link ReplicaException.Timeout} when there was no complete answer within the timeout (the
 * connection is then closed, so a late answer cannot be taken for another call's), and
 * {@link ReplicaException.Failed} when the connection broke or too many calls were already waiting for
 * a connection to that node ({@link ClientConfig#maxPendingPerNode()}: the bound on queued work).
 *
 * <p>Thread-safe. {@link #close()} fails calls in flight.
 */
public final class ReplicaClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaClient.class);
    private static final AttributeKey<Call> CALL = AttributeKey.valueOf("ringbase.call");

    /**
     * The client's limits, all positive.
     *
     * @param timeoutMs          per-call deadline, from {@link #send} to the complete answer (ms)
     * @param maxConnectionsPerNode pooled keep-alive connections per node
     * @param maxPendingPerNode  calls that may wait for a pooled connection per node; more fail at once
     * @param maxResponseBytes   largest response body accepted (bytes)
     * @param ioThreads          client event loop threads
     */
    public record ClientConfig(
            long timeoutMs, int maxConnectionsPerNode, int maxPendingPerNode, int maxResponseBytes, int ioThreads) {
        public ClientConfig {
            if (timeoutMs <= 0
                    || maxConnectionsPerNode <= 0
                    || maxPendingPerNode <= 0
                    || maxResponseBytes <= 0
                    || ioThreads <= 0) {
                throw new IllegalArgumentException("client limits must be positive");
            }
        }

        /** 64 connections and 4,096 waiting calls per node, 32 MiB responses, 2 threads. */
        public static ClientConfig defaults(long timeoutMs) {
            return new ClientConfig(timeoutMs, 64, 4096, 32 << 20, 2);
        }
    }

    /** A complete answer: status, the headers the protocol uses, body bytes. */
    public record Response(int status, String next, byte[] body) {}

    private final ClientConfig config;
    private final RequestSigner signer;
    private final @Nullable Membership membership;
    private final @Nullable Supplier<SslContext> tls;
    private final @Nullable AsciiString membershipDigest;
    private final LogThrottle refusedLog = new LogThrottle(10, TimeUnit.SECONDS);
    private final LogThrottle tlsLog = new LogThrottle(10, TimeUnit.SECONDS);
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final List<EventLoop> loops;
    private final AtomicInteger nextLoop = new AtomicInteger();
    private final Bootstrap bootstrap;
    /** Per node, one pool per event loop (by index in {@link #loops}). */
    private final ConcurrentHashMap<NodeId, FixedChannelPool[]> pools = new ConcurrentHashMap<>();
    /** Each node's {@code host} header value, made once instead of per call. */
    private final ConcurrentHashMap<NodeId, AsciiString> hostHeaders = new ConcurrentHashMap<>();

    private final PeerCallStats stats;
    private final TimeSource time;
    private volatile boolean closed;

    /**
     * A client on its own {@link ClientConfig#ioThreads()} event loops.
     *
     * @param signer signs every request ({@link RequestSigner#NONE}: no cluster secret, unsigned)
     */
    public ReplicaClient(ClientConfig config, RequestSigner signer) {
        this(config, signer, null, TimeSource.SYSTEM);
    }

    /**
     * A client on {@code sharedGroup}'s event loops (the HTTP server's), which it does not shut down;
     * {@code null} for its own group.
     *
     * @param signer signs every request ({@link RequestSigner#NONE}: no cluster secret, unsigned)
     * @param time   the wall clock of signatures and of {@link PeerCallStats.Snapshot#lastAnswerMs()}
     */
    public ReplicaClient(
            ClientConfig config, RequestSigner signer, @Nullable EventLoopGroup sharedGroup, TimeSource time) {
        this(config, signer, sharedGroup, time, null);
    }

    /**
     * As {@link #ReplicaClient(ClientConfig, RequestSigner, EventLoopGroup, TimeSource)}, with every request
     * carrying {@code membership}'s digest in {@link InternalProtocol#MEMBERSHIP} ({@code null}: no header, for tests
     * of the transport alone). A peer that refuses it (409) is logged at ERROR, at most once per 10 s.
     */
    public ReplicaClient(
            ClientConfig config,
            RequestSigner signer,
            @Nullable EventLoopGroup sharedGroup,
            TimeSource time,
            @Nullable Membership membership) {
        this(config, signer, sharedGroup, time, membership, null);
    }

    /**
     * As {@link #ReplicaClient(ClientConfig, RequestSigner, EventLoopGroup, TimeSource, Membership)}, over TLS
     * when {@code tls} is not null: each new connection gets a handler of the context {@code tls} gives then
     * (so a reloaded certificate applies to connections opened after it), checking the peer's certificate
     * against the node's host name.
     */
    public ReplicaClient(
            ClientConfig config,
            RequestSigner signer,
            @Nullable EventLoopGroup sharedGroup,
            TimeSource time,
            @Nullable Membership membership,
            @Nullable Supplier<SslContext> tls) {
        this.tls = tls;
        this.membership = membership;
        this.membershipDigest = membership == null ? null : new AsciiString(membership.digestHex());
        this.config = config;
        this.signer = java.util.Objects.requireNonNull(signer, "signer (RequestSigner.NONE for none)");
        this.time = time;
        this.stats = new PeerCallStats(time);
        this.ownsGroup = sharedGroup == null;
        this.group = sharedGroup == null
                ? Transport.newEventLoopGroup(config.ioThreads(), "ringbase-replica-client")
                : sharedGroup;
        this.loops = Transport.loops(group);
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(Transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(config.timeoutMs(), 5_000));
    }

    /** The index of the calling thread's event loop, or the next loop in turn for any other thread. */
    private int loopIndex() {
        int current = currentLoop();
        return current >= 0 ? current : Math.floorMod(nextLoop.getAndIncrement(), loops.size());
    }

    /** The index of the calling thread's event loop among this client's, or -1 if it runs on none. */
    int currentLoop() {
        for (int i = 0; i < loops.size(); i++) {
            if (loops.get(i).inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** This client's event loops, by index. */
    List<EventLoop> loops() {
        return loops;
    }

    /**
     * Sends one request.
     *
     * @param node   the target
     * @param method GET, PUT, ...
     * @param uri    request target, e.g. {@code /internal/v0/entry?id=6b}
     * @param body   request body (may be empty), not copied: do not change it afterwards
     */
    public CompletableFuture<Response> send(NodeId node, HttpMethod method, String uri, byte[] body) {
        return send(node, method, uri, body, config.timeoutMs());
    }

    /**
     * As {@link #send(NodeId, HttpMethod, String, byte[])}, with a deadline of its own instead of the
     * configured one: for calls whose answer takes work in proportion to the data (a repair's Merkle
     * tree of a whole range).
     *
     * @param timeoutMs from this call to the complete answer, ms; positive
     */
    public CompletableFuture<Response> send(NodeId node, HttpMethod method, String uri, byte[] body, long timeoutMs) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeoutMs);
        }
        Call call = new Call(node, stats.of(node));
        call.stats.calls.increment();
        if (closed) {
            call.result.completeExceptionally(new ReplicaException.Failed(node, "client closed", null));
            return call.result;
        }
        // no trailers object: a content-length request has none (Netty's default makes an empty header map)
        FullHttpRequest request = new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1,
                method,
                uri,
                Unpooled.wrappedBuffer(body),
                DefaultHttpHeadersFactory.headersFactory().newHeaders(),
                EmptyHttpHeaders.INSTANCE);
        request.headers()
                .set(
                        HttpHeaderNames.HOST,
                        hostHeaders.computeIfAbsent(node, n -> new AsciiString(n.host() + ":" + n.port())));
        request.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (membershipDigest != null) {
            request.headers().set(MEMBERSHIP_HEADER, membershipDigest);
        }
        LongSupplier epoch = epochSource;
        if (epoch != null) {
            request.headers().set(EPOCH_HEADER, Long.toString(epoch.getAsLong()));
        }
        if (signer.signs()) {
            request.headers()
                    .set(RequestSigner.HEADER, signer.sign(method.name(), uri, body, time.currentTimeMillis()));
        }
        int loop = loopIndex();
        FixedChannelPool pool = pools.computeIfAbsent(node, this::newPools)[loop];
        call.pool = pool;
        call.timer = loops.get(loop).schedule(() -> timeOut(call, pool, timeoutMs), timeoutMs, TimeUnit.MILLISECONDS);
        pool.acquire().addListener((Future<Channel> f) -> {
            if (!f.isSuccess()) {
                request.release();
                Throwable cause = f.cause();
                call.fail(
                        cause instanceof ConnectException
                                        || cause instanceof java.net.NoRouteToHostException
                                        || cause instanceof io.netty.channel.ConnectTimeoutException
                                ? new ReplicaException.Unreachable(node, cause)
                                : new ReplicaException.Failed(node, "no connection: " + cause, cause));
                return;
            }
            Channel ch = f.getNow();
            call.channel = ch;
            ch.attr(CALL).set(call);
            if (call.result.isDone()) { // timed out while waiting for the connection
                request.release();
                detach(ch, call, pool, false);
                return;
            }
            ch.writeAndFlush(request).addListener(w -> {
                if (!w.isSuccess() && call.fail(new ReplicaException.Failed(node, "write failed", w.cause()))) {
                    detach(ch, call, pool, true);
                }
            });
        });
        return call.result;
    }

    /** One pool per event loop, sharing the per-node connection and waiting-call limits between them. */
    private FixedChannelPool[] newPools(NodeId node) {
        FixedChannelPool[] perLoop = new FixedChannelPool[loops.size()];
        int connections = Math.max(1, config.maxConnectionsPerNode() / loops.size());
        int pending = Math.max(1, config.maxPendingPerNode() / loops.size());
        for (int i = 0; i < perLoop.length; i++) {
            perLoop[i] = newPool(node, loops.get(i), connections, pending);
        }
        return perLoop;
    }

    private FixedChannelPool newPool(NodeId node, EventLoop loop, int connections, int pending) {
        return new FixedChannelPool(
                bootstrap.clone(loop).remoteAddress(node.host(), node.port()),
                new AbstractChannelPoolHandler() {
                    @Override
                    public void channelCreated(Channel ch) {
                        if (tls != null) {
                            var _ = ch.pipeline()
                                    .addLast("tls", tls.get().newHandler(ch.alloc(), node.host(), node.port()));
                        }
                        ch.pipeline()
                                .addLast(new HttpClientCodec())
                                .addLast(new HttpObjectAggregator(config.maxResponseBytes()))
                                .addLast(new ResponseHandler());
                    }
                },
                ChannelHealthChecker.ACTIVE,
                FixedChannelPool.AcquireTimeoutAction.FAIL,
                config.timeoutMs(),
                connections,
                pending,
                true,
                true);
    }

    private void timeOut(Call call, FixedChannelPool pool, long timeoutMs) {
        if (call.fail(new ReplicaException.Timeout(call.node, timeoutMs))) {
            Channel ch = call.channel;
            if (ch != null) {
                detach(ch, call, pool, true); // a late answer must not be read as the next call's
            }
        }
    }

    /** Ends {@code call}'s use of {@code ch}: returns it to the pool (closing it first if asked), once. */
    private void detach(Channel ch, Call call, @Nullable FixedChannelPool pool, boolean close) {
        if (!call.released.compareAndSet(false, true)) {
            return;
        }
        ch.attr(CALL).compareAndSet(call, null);
        if (close || closed) {
            var _ = ch.close();
        }
        if (!closed && pool != null) { // a closed pool has nobody left to notify; a call is sent with its pool
            var _ = pool.release(ch);
        }
    }

    private static final AsciiString EPOCH_HEADER = AsciiString.cached(InternalProtocol.EPOCH);

    /** The metadata epoch every request carries ({@link InternalProtocol#EPOCH}); null: none (a static cluster). */
    private volatile @Nullable LongSupplier epochSource;

    /**
     * Makes every request from now on carry this node's metadata epoch ({@link InternalProtocol#EPOCH}), so
     * that a node behind it catches up.
     */
    public void sendEpoch(LongSupplier epoch) {
        this.epochSource = epoch;
    }

    private static final AsciiString MEMBERSHIP_HEADER = AsciiString.cached(InternalProtocol.MEMBERSHIP);

    /** One line naming both memberships when a peer refuses this node's membership. */
    private void logRefusal(NodeId node, FullHttpResponse response) {
        long heldBack = refusedLog.tryLog();
        if (heldBack >= 0) {
            log.error(
                    "node {} refuses this node's requests ({} more since the last line): {}; this node has {}",
                    node,
                    heldBack,
                    response.content()
                            .toString(java.nio.charset.StandardCharsets.UTF_8)
                            .trim(),
                    membership == null ? "no membership" : membership.describe());
        }
    }

    /** Completes the call whose request is outstanding on this connection. */
    private final class ResponseHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof FullHttpResponse response)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            Call call = ctx.channel().attr(CALL).get();
            try {
                if (call == null) {
                    var _ = ctx.close(); // nobody asked: out of sync
                    return;
                }
                boolean keepAlive = HttpUtil.isKeepAlive(response)
                        && response.decoderResult().isSuccess();
                if (response.decoderResult().isFailure()) {
                    call.fail(new ReplicaException.Failed(
                            call.node, "bad response", response.decoderResult().cause()));
                } else {
                    if (response.status().code() == 409) {
                        logRefusal(call.node, response);
                    }
                    call.succeed(new Response(
                            response.status().code(),
                            response.headers().get(InternalProtocol.NEXT),
                            ByteBufUtil.getBytes(response.content())));
                }
                detach(ctx.channel(), call, call.pool, !keepAlive);
            } finally {
                response.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Call call = ctx.channel().attr(CALL).get();
            if (call != null && call.fail(new ReplicaException.Failed(call.node, "connection closed", null))) {
                detach(ctx.channel(), call, call.pool, true);
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            SSLException tls = tlsFailure(cause);
            long heldBack = tls == null ? -1 : tlsLog.tryLog();
            if (tls != null && heldBack >= 0) {
                // a certificate the peer refuses, or one of the peer's this node does not trust: say it once
                log.warn(
                        "TLS with node {} failed: {}{}",
                        ctx.channel().remoteAddress(),
                        tls.getMessage(),
                        heldBack > 0 ? " (" + heldBack + " more TLS failures since the last such line)" : "");
            } else {
                log.debug("replica connection {} failed", ctx.channel().remoteAddress(), cause);
            }
            var _ = ctx.close();
        }
    }

    /** The TLS failure in {@code cause}'s chain, or null if it is none. */
    private static @Nullable SSLException tlsFailure(@Nullable Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException e) {
                return e;
            }
        }
        return null;
    }

    /** Calls made to each node and how they ended. */
    public PeerCallStats stats() {
        return stats;
    }

    /** One request/response exchange. */
    private static final class Call {
        final NodeId node;
        final PeerCallStats.Counters stats;
        final CompletableFuture<Response> result = new CompletableFuture<>();
        final AtomicBoolean released = new AtomicBoolean();
        volatile @Nullable Channel channel; // once connected
        volatile @Nullable FixedChannelPool pool; // once sent
        volatile @Nullable ScheduledFuture<?> timer; // once sent

        Call(NodeId node, PeerCallStats.Counters stats) {
            this.node = node;
            this.stats = stats;
        }

        boolean succeed(Response r) {
            cancelTimer();
            boolean first = result.complete(r);
            if (first) {
                stats.answered();
            }
            return first;
        }

        boolean fail(Throwable t) {
            cancelTimer();
            boolean first = result.completeExceptionally(t);
            if (first) {
                stats.failed(t);
            }
            return first;
        }

        private void cancelTimer() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (FixedChannelPool[] perLoop : List.copyOf(pools.values())) {
            for (FixedChannelPool pool : perLoop) {
                pool.close();
            }
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
