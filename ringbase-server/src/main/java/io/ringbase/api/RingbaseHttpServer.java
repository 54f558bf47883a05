package io.ringbase.api;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.ringbase.api.wire.Request;
import io.ringbase.api.wire.RequestDecoder;
import io.ringbase.api.wire.ResponseEncoder;
import io.ringbase.logging.LogThrottle;
import io.ringbase.observe.RequestMetrics;
import io.ringbase.storage.Entry;
import io.ringbase.transport.ConnectionSniffer;
import io.ringbase.transport.Transport;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public HTTP API of one node (API v0, see {@code docs/http-api.md}) on Netty: the native epoll
 * transport when available, NIO otherwise.
 *
 * <p>Threading: {@link HttpServerConfig#ioThreads()} event loops accept connections, parse HTTP and
 * write responses; each request goes to the {@link Route} its {@link HttpApi}'s table names, on a bounded
 * pool of {@link HttpServerConfig#workerThreads()} threads with a queue of
 * {@link HttpServerConfig#queueCapacity()}; when the queue is full a request is answered with 503 at once.
 * Requests that will not block ({@link HttpServerConfig#inlinePointRequests()}, {@link Route#runsInline}) run
 * on the event loop itself. Range responses are read from the engine on the workers, about 64 KiB of
 * entries per refill ({@link EntryChunkedInput}); the event loop only writes chunks already read, and only
 * while the channel is writable, so a slow client holds neither a worker nor more than about one batch of
 * memory.
 *
 * <p>Lifecycle: {@link #start()} once, then {@link #close()}. The server does not own what it serves and
 * never closes it.
 */
public final class RingbaseHttpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RingbaseHttpServer.class);

    /** Name prefix of the event loop threads (also of a group shared with the replica client). */
    public static final String IO_THREAD_NAME = "ringbase-http-io";

    /** How long {@link #close()} waits for in-flight requests before cutting connections. */
    static final long CLOSE_TIMEOUT_MS = 10_000;

    /** Longest request line: a {@link Entry#MAX_KEY_BYTES} key fully percent-encoded (3 chars a byte) plus slack. */
    static final int MAX_INITIAL_LINE_LENGTH = 3 * Entry.MAX_KEY_BYTES + 4096;

    /** Largest header block. */
    static final int MAX_HEADER_BYTES = 16 * 1024;

    private final HttpServerConfig config;
    private final Shared shared;
    private final @Nullable EventLoopGroup sharedGroup;
    private final @Nullable Supplier<SslContext> tls;
    private final ChannelGroup connections = new DefaultChannelGroup("ringbase-http", GlobalEventExecutor.INSTANCE);
    private final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
    private final LogThrottle refusalLog = new LogThrottle(10, TimeUnit.SECONDS);
    private @Nullable EventLoopGroup group; // from start()
    private @Nullable Channel serverChannel; // from start()
    private boolean closed;

    /**
     * A server on event loops of its own ({@link HttpServerConfig#ioThreads()}).
     *
     * @param config    the bind address and limits
     * @param api       what it serves
     * @param metrics   where requests are counted, or {@code null} to count nothing (metrics off)
     * @param accessLog whether every request is logged (method, target, status, microseconds) on the logger
     *                  {@value ConnectionHandler#ACCESS_LOGGER} at INFO
     */
    public RingbaseHttpServer(
            HttpServerConfig config, HttpApi api, @Nullable RequestMetrics metrics, boolean accessLog) {
        this(config, api, metrics, accessLog, null);
    }

    /**
     * A server on {@code sharedGroup}'s event loops (shared with the replica client, see
     * {@link io.ringbase.transport}), which the caller shuts down after {@link #close()}; {@code null}: the
     * server makes its own {@link HttpServerConfig#ioThreads()} loops.
     */
    public RingbaseHttpServer(
            HttpServerConfig config,
            HttpApi api,
            @Nullable RequestMetrics metrics,
            boolean accessLog,
            @Nullable EventLoopGroup sharedGroup) {
        this(config, api, metrics, accessLog, sharedGroup, null);
    }

    /**
     * As above, with TLS on the port: every new connection that opens with a TLS record gets an
     * {@link io.netty.handler.ssl.SslHandler} of {@code tls}' context at that moment (so a reloaded
     * certificate applies to new connections), and plain HTTP gets one 400 and is closed
     * ({@link ProtocolSniff}).
     *
     * @param tls the TLS context of {@link HttpServerConfig#tls()}, which the caller opens and closes; {@code
     *            null} for plain HTTP
     */
    public RingbaseHttpServer(
            HttpServerConfig config,
            HttpApi api,
            @Nullable RequestMetrics metrics,
            boolean accessLog,
            @Nullable EventLoopGroup sharedGroup,
            @Nullable Supplier<SslContext> tls) {
        this.config = Objects.requireNonNull(config, "config");
        this.sharedGroup = sharedGroup;
        this.tls = tls;
        ThreadPoolExecutor workers = new ThreadPoolExecutor(
                config.workerThreads(),
                config.workerThreads(),
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(config.queueCapacity()),
                new DefaultThreadFactory("ringbase-http-worker", true),
                new ThreadPoolExecutor.AbortPolicy());
        this.shared = new Shared(
                Objects.requireNonNull(api, "api"),
                workers,
                config.maxBodyBytes(),
                config.inlinePointRequests(),
                metrics,
                accessLog,
                config.scanIdleTimeoutMs());
    }

    /**
     * Binds and starts serving.
     *
     * @return the bound port (the ephemeral one if the config says 0)
     * @throws IllegalStateException if already started or closed. A bind failure (e.g.
     *         {@link java.net.BindException} for a port in use) is rethrown as is, unchecked, and leaves the
     *         server closed.
     */
    public synchronized int start() {
        if (group != null || closed) {
            throw new IllegalStateException("start() may be called once, before close()");
        }
        group = sharedGroup != null ? sharedGroup : Transport.newEventLoopGroup(config.ioThreads(), IO_THREAD_NAME);
        try {
            serverChannel = new ServerBootstrap()
                    .group(group)
                    .channel(Transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (!admit(ch)) {
                                return;
                            }
                            connections.add(ch);
                            addConnectionHandlers(ch.pipeline());
                        }
                    })
                    .bind(config.host(), config.port())
                    .syncUninterruptibly()
                    .channel();
        } catch (RuntimeException e) {
            if (sharedGroup == null) {
                var _ = group.shutdownGracefully(0, 1, TimeUnit.SECONDS); // the bind's failure is the one thrown
            }
            shared.workers().shutdownNow();
            closed = true;
            throw e;
        }
        int port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        log.info(
                "HTTP API listening on {}:{} ({}{})",
                config.host(),
                port,
                Transport.serverChannel().getSimpleName(),
                tls != null ? ", TLS only" : "");
        return port;
    }

    /**
     * Adds the handlers of one connection to {@code pipeline}: each accepted connection's, and in tests an
     * {@code EmbeddedChannel}'s.
     */
    void addConnectionHandlers(ChannelPipeline pipeline) {
        pipeline.addLast("idle", new IdleStateHandler(config.idleTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS))
                .addLast(
                        "decoder",
                        new RequestDecoder(
                                MAX_INITIAL_LINE_LENGTH,
                                MAX_HEADER_BYTES,
                                aggregateLimit(
                                        config.maxBodyBytes(), shared.api().bodyOverheadBytes()),
                                BARE_HEADER_PATHS,
                                config.requestTimeoutMs()))
                .addLast("encoder", new ResponseEncoder())
                .addLast("chunked", new ChunkedWriteHandler())
                .addLast("api", new ConnectionHandler(shared));
        ConnectionSniffer sniffer = shared.api().sniffer();
        if (sniffer != null || tls != null) {
            pipeline.addFirst("sniff", new ProtocolSniff(sniffer, tls, shared.workers()));
        }
    }

    /** The paths whose requests need no header fields kept (see {@link RequestDecoder}). */
    private static final List<String> BARE_HEADER_PATHS = List.of(EntityApi.ENTITY);

    /**
     * Counts {@code ch} against {@link HttpServerConfig#maxConnections()}: false, having closed it, if
     * the cap is reached (with a WARN line at most every 10 s).
     */
    private boolean admit(SocketChannel ch) {
        int now = open.incrementAndGet();
        if (now > config.maxConnections()) {
            open.decrementAndGet();
            if (refusalLog.tryLog() >= 0) {
                log.warn(
                        "refusing connections from {} and others: {} are open, the cap is {} (--max-connections)",
                        ch.remoteAddress(),
                        now - 1,
                        config.maxConnections());
            }
            var _ = ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    /** Connections open now (for tests and metrics). */
    public int openConnections() {
        return open.get();
    }

    /** The largest request body the decoder reads, bytes ({@link #aggregateLimit}). */
    int bodyLimit() {
        return aggregateLimit(config.maxBodyBytes(), shared.api().bodyOverheadBytes());
    }

    /** Requests taken up whose response is not yet written or failed (for tests); 0 when idle. */
    int inFlight() {
        return shared.inFlight();
    }

    /**
     * Stops gracefully within about {@value #CLOSE_TIMEOUT_MS} ms: stops accepting connections, answers
     * requests that arrive meanwhile on open connections with 503, lets queued and in-flight requests
     * finish and their responses be written, then shuts down the workers and the event loops (closing
     * the connections that are left). Idempotent. Does not close the engine.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_TIMEOUT_MS);
        shared.stopping = true;
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        ThreadPoolExecutor workers = shared.workers();
        workers.shutdown();
        try {
            if (!workers.awaitTermination(remainingNanos(deadline), TimeUnit.NANOSECONDS)) {
                log.warn("workers still busy after {} ms; interrupting them", CLOSE_TIMEOUT_MS);
            }
            if (!shared.awaitIdle(deadline)) {
                log.warn(
                        "{} responses still being written after {} ms; closing their connections",
                        shared.inFlight(),
                        CLOSE_TIMEOUT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        connections.close().awaitUninterruptibly(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (group != null && sharedGroup == null) {
            group.shutdownGracefully(
                            0,
                            Math.max(100, TimeUnit.NANOSECONDS.toMillis(remainingNanos(deadline))),
                            TimeUnit.MILLISECONDS)
                    .awaitUninterruptibly(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        log.info("HTTP API stopped");
    }

    /**
     * The decoder's body limit: the value limit plus the room an added route's requests carry beside a value
     * ({@link HttpApi#bodyOverheadBytes()}: the node-to-node API's replica write has its key and entry header
     * in the body too). Public PUTs are held to {@code maxBodyBytes} itself by {@link EntityApi}.
     */
    static int aggregateLimit(int maxBodyBytes, int overheadBytes) {
        return (int) Math.min(Integer.MAX_VALUE, (long) maxBodyBytes + overheadBytes);
    }

    private static long remainingNanos(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /** State shared by all connections of one server. */
    static final class Shared {
        private final HttpApi api;
        private final ThreadPoolExecutor workers;
        private final int maxBodyBytes;
        private final boolean inlinePointRequests;
        private final @Nullable RequestMetrics metrics;
        private final boolean accessLog;
        private final long scanIdleTimeoutMs;
        private final Object idleLock = new Object();
        private int inFlight; // guarded by idleLock
        volatile boolean stopping;
        private final java.util.function.BooleanSupplier stoppingFlag = this::isStopping;

        Shared(
                HttpApi api,
                ThreadPoolExecutor workers,
                int maxBodyBytes,
                boolean inlinePointRequests,
                @Nullable RequestMetrics metrics,
                boolean accessLog,
                long scanIdleTimeoutMs) {
            this.api = api;
            this.scanIdleTimeoutMs = scanIdleTimeoutMs;
            this.metrics = metrics;
            this.accessLog = accessLog;
            this.workers = workers;
            this.maxBodyBytes = maxBodyBytes;
            this.inlinePointRequests = inlinePointRequests;
        }

        /** Whether {@code route}'s {@code request} is served on the event loop that read it ({@link Route#runsInline}). */
        boolean runsInline(Route route, Request request) {
            return inlinePointRequests && route.runsInline(request);
        }

        HttpApi api() {
            return api;
        }

        private final io.netty.util.concurrent.FastThreadLocal<InlineWrites> inlineWrites =
                new io.netty.util.concurrent.FastThreadLocal<>();

        /** The write batch of the event loop {@code loop}, which must be the calling thread. */
        InlineWrites inlineWrites(io.netty.util.concurrent.EventExecutor loop) {
            InlineWrites writes = inlineWrites.get();
            if (writes == null) {
                writes = new InlineWrites(api.entities(), loop);
                inlineWrites.set(writes);
            }
            return writes;
        }

        /** How long a range response may go without its client taking a byte, ms. */
        long scanIdleTimeoutMs() {
            return scanIdleTimeoutMs;
        }

        /** Whether every request is logged on the access logger. */
        boolean accessLog() {
            return accessLog;
        }

        /** Where requests are counted, or {@code null} when metrics are off. */
        @Nullable
        RequestMetrics metrics() {
            return metrics;
        }

        /** Whether point requests may run on the event loop that read them. */
        boolean inlinePointRequests() {
            return inlinePointRequests;
        }

        ThreadPoolExecutor workers() {
            return workers;
        }

        int maxBodyBytes() {
            return maxBodyBytes;
        }

        boolean isStopping() {
            return stopping;
        }

        /** {@link #isStopping()} as a supplier, made once. */
        java.util.function.BooleanSupplier stoppingFlag() {
            return stoppingFlag;
        }

        /** A request was taken up; it counts until its response is written or has failed. */
        void requestStarted() {
            synchronized (idleLock) {
                inFlight++;
            }
        }

        void requestFinished() {
            synchronized (idleLock) {
                if (--inFlight == 0) {
                    idleLock.notifyAll();
                }
            }
        }

        int inFlight() {
            synchronized (idleLock) {
                return inFlight;
            }
        }

        /** Waits until no request is in flight or {@code deadline} (a {@link System#nanoTime()}) passes. */
        boolean awaitIdle(long deadline) throws InterruptedException {
            synchronized (idleLock) {
                while (inFlight > 0) {
                    long left = remainingNanos(deadline);
                    if (left == 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(idleLock, left);
                }
                return true;
            }
        }
    }
}
