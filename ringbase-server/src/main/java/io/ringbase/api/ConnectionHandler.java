package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.ringbase.api.wire.RawResponses;
import io.ringbase.api.wire.Request;
import io.ringbase.api.wire.RequestError;
import io.ringbase.logging.LogThrottle;
import io.ringbase.observe.RequestMetrics;
import io.ringbase.tls.PeerCertificates;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection: serves each decoded request, one at a time, so responses leave in request order
 * (HTTP/1.1 pipelining) and a connection holds at most one worker.
 *
 * <p>Each request is matched once against the {@link RouteTable}; the route found serves it in one of
 * three ways:
 * <ul>
 *   <li>a point request where the key-value service offers the inline path ({@link EntityApi#servesInline()})
 *       right here on the event loop, into a raw response written with no promise and flushed once per read
 *       (the allocation-free path);</li>
 *   <li>another request that will not block ({@link Route#runsInline}) on the event loop too, answered with
 *       a response object;</li>
 *   <li>anything else, including an inline write the engine declined to take without waiting, on the
 *       worker pool, which hops back to the event loop to write. The worker calls the route already
 *       found.</li>
 * </ul>
 *
 * <p>Threading: all fields are touched on the channel's event loop only. While a request is being
 * served on a worker, a further (pipelined) request waits in {@link #pending} and reading from the
 * socket pauses (auto-read off) until the queue is empty again; reading also pauses while the channel
 * is not writable (a client that sends but does not read). A full worker queue is answered at once with
 * 503 from the event loop, without an exception.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);
    /** Name of the access log's logger ({@code serve --access-log}). */
    static final String ACCESS_LOGGER = "io.ringbase.access";

    private static final Logger access = LoggerFactory.getLogger(ACCESS_LOGGER);

    /** Where the node-to-node API's paths start, whether or not a route serves them. */
    private static final String INTERNAL_PREFIX = "/internal/";

    private final RingbaseHttpServer.Shared shared;
    private final ArrayDeque<Object> pending = new ArrayDeque<>(2);

    @SuppressWarnings("NullAway.Init") // set by handlerAdded, Netty's first call
    private ChannelHandlerContext ctx;

    private boolean busy;
    private boolean reading; // inside channelRead: channelReadComplete will flush
    private boolean unflushed; // raw responses written but not flushed
    // the request being served, for RequestMetrics
    private long startNanos;
    private int endpoint;
    private int method;
    private int status;
    private @Nullable String accessLine; // method and target, when the access log is on
    // the request is a HEAD: respond() drops its body (raw and range responses answer only GET, PUT, DELETE)
    private boolean head;
    private final LogThrottle errorLog;

    ConnectionHandler(RingbaseHttpServer.Shared shared) {
        this(shared, UNEXPECTED_ERROR_LOG);
    }

    /** For tests: {@code errorLog} limits the WARN lines of {@link #exceptionCaught} instead of the node's. */
    ConnectionHandler(RingbaseHttpServer.Shared shared, LogThrottle errorLog) {
        this.shared = shared;
        this.errorLog = errorLog;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Request || msg instanceof RequestError) {
            pending.add(msg);
            reading = true;
            try {
                processNext();
            } finally {
                reading = false;
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushIfNeeded();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            processNext();
            flushIfNeeded();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** An idle connection (no byte from the client for the idle timeout, no request in progress) is closed. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof io.netty.handler.timeout.IdleStateEvent e
                && e.state() == io.netty.handler.timeout.IdleState.READER_IDLE) {
            if (!busy && pending.isEmpty()) {
                log.debug("closing idle connection {}", ctx.channel().remoteAddress());
                var _ = ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePending();
        ctx.fireChannelInactive();
    }

    /**
     * Closes the connection. An out-of-memory error logs a WARN (at most one a second) naming the cap to
     * raise; an I/O error (the peer went away) logs at DEBUG; any other error is a bug on the request path
     * and logs a WARN with its stack trace, at most one per 10 s with the count of those held back.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        long heldBack;
        if (cause instanceof OutOfMemoryError && (heldBack = OUT_OF_MEMORY_LOG.tryLog()) >= 0) {
            log.warn(
                    "closing connection {}: no memory for its buffers ({}){}; Netty's direct buffers are capped by "
                            + "RINGBASE_NETTY_DIRECT (-Dio.netty.maxDirectMemory, docs/design.md \"Memory budget of a node\"), "
                            + "so fewer large requests at once, or a larger cap, avoid it",
                    ctx.channel().remoteAddress(),
                    cause.getMessage(),
                    heldBack > 0 ? " (and " + heldBack + " more in the last second)" : "");
        } else if (cause instanceof io.netty.handler.codec.DecoderException
                && (cause.getCause() instanceof javax.net.ssl.SSLException
                        || cause instanceof io.netty.handler.ssl.NotSslRecordException)) {
            // a failed TLS handshake (no client certificate where --tls-ca asks for one, an unknown CA, no
            // common protocol) or bytes that are not TLS: the client's doing, nothing for an operator
            log.debug("closing connection {} after a TLS error", ctx.channel().remoteAddress(), cause);
        } else if (cause instanceof java.io.IOException) {
            // the peer reset or closed the connection (Netty's native transport reports ECONNRESET and
            // EPIPE as IOExceptions): the client's doing, nothing for an operator
            log.debug("closing connection {} after I/O error", ctx.channel().remoteAddress(), cause);
        } else if (cause instanceof OutOfMemoryError) {
            log.debug(
                    "closing connection {}: no memory for its buffers",
                    ctx.channel().remoteAddress(),
                    cause);
        } else if ((heldBack = errorLog.tryLog()) >= 0) {
            // anything else is a bug on the request path: the client loses its connection and every
            // request pipelined on it, so the operator hears of it, with the stack trace to report
            log.warn(
                    "closing connection {} after an unexpected error{}; its pending requests get no answer. This is "
                            + "a bug: please report it with this stack trace",
                    ctx.channel().remoteAddress(),
                    heldBack > 0 ? " (and " + heldBack + " more since the last such line)" : "",
                    cause);
        }
        var _ = ctx.close();
    }

    /** Connections closed for lack of buffer memory: one WARN line a second, whatever the connections. */
    private static final LogThrottle OUT_OF_MEMORY_LOG = new LogThrottle(1, java.util.concurrent.TimeUnit.SECONDS);
    /** Connections closed after an unexpected error: one WARN line (with its stack trace) per 10 s. */
    private static final LogThrottle UNEXPECTED_ERROR_LOG = new LogThrottle(10, java.util.concurrent.TimeUnit.SECONDS);

    /**
     * Starts the next pending request unless one is being served or the client is not reading its
     * responses; resumes reading when idle.
     */
    private void processNext() {
        Object msg;
        while (!busy && ctx.channel().isWritable() && (msg = pending.poll()) != null) {
            if (!ctx.channel().isActive()) {
                Request.release(msg);
                continue;
            }
            busy = true;
            shared.requestStarted();
            head = msg instanceof Request r ? r.method().equals(HttpMethod.HEAD) : ((RequestError) msg).head();
            if (shared.metrics() != null || shared.accessLog()) {
                startNanos = System.nanoTime();
                endpoint = shared.api().routes().otherEndpoint();
                method = RequestMetrics.OTHER_METHOD;
                if (shared.accessLog()) { // a string per request: only when asked for
                    accessLine = msg instanceof Request r ? r.method().name() + " " + r.uri() : "(malformed request)";
                }
            }
            switch (msg) {
                case RequestError.TooLarge t ->
                    respond(Responses.payloadTooLarge(t.version(), shared.maxBodyBytes()), t.keepAlive());
                case RequestError.UnsupportedExpectation u ->
                    respond(Responses.expectationFailed(u.version()), u.keepAlive());
                case RequestError.Timeout t -> {
                    log.debug(
                            "closing {}: a request did not arrive in full within {} ms",
                            ctx.channel().remoteAddress(),
                            t.timeoutMs());
                    respond(Responses.requestTimeout(t.timeoutMs()), false);
                }
                case RequestError.Malformed m -> {
                    log.debug("malformed request from {}: {}", ctx.channel().remoteAddress(), m.reason());
                    respond(Responses.malformed(m.reason()), false);
                }
                case Request r -> dispatch(r);
                default -> throw new IllegalStateException("unexpected " + msg);
            }
        }
        // Keep reading while at most the request being served is outstanding; stop once a pipelined
        // request has to wait, so a connection never queues more than one. Not toggling per request
        // spares two epoll_ctl calls per request for the usual, non-pipelined client.
        boolean read = pending.isEmpty() && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
        if (!reading) {
            flushIfNeeded();
        }
    }

    private void dispatch(Request request) {
        HttpVersion version = request.version();
        boolean keepAlive = request.keepAlive() && !shared.isStopping();
        RouteTable.Entry entry = shared.api().routes().resolve(request);
        Route route = entry.route();
        if (shared.metrics() != null) {
            endpoint = entry.endpoint();
            method = methodIndex(request.method());
        }
        try {
            shared.api().authorize(entry, request); // before any route, the inline point path included
            if (entry.access() == Access.NODE || request.uri().startsWith(INTERNAL_PREFIX)) {
                // on a TLS port, only a peer with a certificate of --tls-ca speaks for a node
                String refusal = PeerCertificates.refusal(ctx.channel(), "an /internal/ request");
                if (refusal != null) {
                    throw new ForbiddenException(refusal);
                }
            }
        } catch (Exception refused) {
            request.release();
            respond(Responses.error(refused, version), keepAlive);
            return;
        }
        EntityApi entities = shared.api().entities();
        if (shared.inlinePointRequests() && route == entities.points() && entities.servesInline()) {
            ByteBuf raw;
            try {
                QueryString query = QueryString.parse(request.target(), EntityApi.ENTITY.length() + 1);
                if (shared.inlineWrites(ctx.executor()).stage(this, request, query)) {
                    return; // answered once the loop's batch of writes is applied (answerStaged and the like)
                }
                raw = entities.serveInline(request, query, ctx.alloc(), shared.stoppingFlag());
            } catch (Throwable t) {
                request.release();
                respond(Responses.error(t, version), keepAlive);
                return;
            }
            if (raw != null) {
                request.release();
                // the response said keep-alive only if the server was not stopping when it was made
                respondRaw(raw, request.keepAlive() && !shared.isStopping());
                return;
            }
            // the engine could not take the write without waiting: a worker will
        } else if (shared.runsInline(route, request)) {
            if (serve(route, request, version, keepAlive, false)) {
                return;
            }
            // a write inside it could not be taken without waiting: a worker will run it again
        }
        toWorker(route, request, version, keepAlive);
    }

    /** The method's index in {@link RequestMetrics#METHODS}. */
    private static int methodIndex(HttpMethod method) {
        if (method.equals(HttpMethod.GET)) {
            return 0;
        }
        if (method.equals(HttpMethod.PUT)) {
            return 1;
        }
        if (method.equals(HttpMethod.DELETE)) {
            return 2;
        }
        if (method.equals(HttpMethod.POST)) {
            return 3;
        }
        return RequestMetrics.OTHER_METHOD;
    }

    /** The staged write of {@code request} ({@link InlineWrites}) is in the WAL and the memtable: answers it. */
    void answerStaged(Request request, RawResponses.Status status, long version) {
        boolean keepAlive = request.keepAlive() && !shared.isStopping();
        ByteBuf raw = RawResponses.empty(ctx.alloc(), request.version(), status, keepAlive, version);
        request.release();
        respondRaw(raw, keepAlive);
        processNext(); // the next pipelined request, and the flush
    }

    /** The batch holding the staged write of {@code request} failed: nothing of it was written. */
    void failStaged(Request request, Throwable failure) {
        HttpVersion version = request.version();
        boolean keepAlive = request.keepAlive() && !shared.isStopping();
        request.release();
        respond(Responses.error(failure, version), keepAlive);
    }

    /** The engine declined the staged write of {@code request} without waiting: a worker writes it. */
    void declineStaged(Request request) {
        toWorker(
                shared.api().entities().points(),
                request,
                request.version(),
                request.keepAlive() && !shared.isStopping());
    }

    /** Closes the connection (after a failure that left it in an unknown state). */
    void close() {
        var _ = ctx.close();
    }

    /** Hands {@code request} for {@code route} to the worker pool, or answers 503 if its queue is full. */
    private void toWorker(Route route, Request request, HttpVersion version, boolean keepAlive) {
        if (shared.workers().getQueue().remainingCapacity() == 0) { // overloaded: answer without an exception
            request.release();
            respond(Responses.overloaded(version), keepAlive);
            return;
        }
        try {
            shared.workers().execute(() -> serve(route, request, version, keepAlive, true));
        } catch (RejectedExecutionException e) { // filled up since the check, or shutting down
            request.release();
            respond(Responses.overloaded(version), keepAlive);
        }
    }

    /** Writes a complete raw response on the event loop; flushed at the end of the read or of processNext. */
    private void respondRaw(ByteBuf response, boolean keepAlive) {
        status = RawResponses.status(response);
        if (!keepAlive) {
            ctx.writeAndFlush(response).addListener((ChannelFuture f) -> finished(f, false));
            return;
        }
        var _ = ctx.write(response, ctx.voidPromise());
        unflushed = true;
        busy = false;
        shared.requestFinished();
        record();
    }

    /** Counts the request just answered ({@link #status}) if metrics are on, and logs it if the access log is. */
    private void record() {
        RequestMetrics m = shared.metrics();
        if (m != null) {
            m.record(endpoint, method, status, System.nanoTime() - startNanos);
        }
        if (shared.accessLog()) {
            access.info(
                    "{} {} {} {}us",
                    ctx.channel().remoteAddress(),
                    accessLine,
                    status,
                    (System.nanoTime() - startNanos) / 1000);
        }
    }

    private void flushIfNeeded() {
        if (unflushed) {
            unflushed = false;
            ctx.flush();
        }
    }

    /**
     * On a worker thread ({@code mayWait}) or the event loop: runs the request on its route, then hands the
     * response to the event loop (directly when already on it).
     *
     * @return {@code false} if, on the event loop, the request could not be served without waiting:
     *         nothing was answered and the request is still owned by the caller
     */
    private boolean serve(Route route, Request request, HttpVersion version, boolean keepAlive, boolean mayWait) {
        Outcome outcome;
        try {
            String uri = request.uri();
            int q = uri.indexOf('?');
            String path = q < 0 ? uri : uri.substring(0, q);
            QueryString query = q < 0 ? QueryString.parse(null) : QueryString.parse(request.target(), q + 1);
            outcome = route.handle(request, path, query, mayWait);
        } catch (Throwable t) {
            request.release();
            FullHttpResponse error = Responses.error(t, version);
            onEventLoop(() -> respond(error, keepAlive), error::release);
            return true;
        }
        if (outcome == Outcome.BLOCKED) {
            return false;
        }
        request.release();
        if (outcome instanceof Outcome.Pending pending) {
            // Completes on this worker (already done) or on a replica client event loop: never block here.
            pending.result().whenComplete((done, failure) -> {
                FullHttpResponse response =
                        failure != null ? Responses.error(failure, version) : Responses.of(done, version);
                onEventLoop(() -> respond(response, keepAlive), response::release);
            });
        } else if (outcome instanceof Outcome.Range range) {
            EntryChunkedInput body =
                    new EntryChunkedInput(range.source(), range.format(), range.paged(), shared.workers(), ctx.alloc());
            body.prefetch(); // the first refill starts here, on the worker (a local source reads its batch here)
            onEventLoop(() -> stream(body, version, keepAlive), body::close);
        } else {
            FullHttpResponse response = Responses.of(outcome, version);
            onEventLoop(() -> respond(response, keepAlive), response::release);
        }
        return true;
    }

    private void onEventLoop(Runnable task, Runnable discard) {
        if (ctx.executor().inEventLoop()) {
            task.run();
            return;
        }
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) { // event loop already shut down: nobody to answer
            discard.run();
            shared.requestFinished();
        }
    }

    private void respond(FullHttpResponse response, boolean keepAlive) {
        boolean keep = keepAlive && !shared.isStopping(); // a stopping server closes connections as it answers
        if (head) {
            response = withoutBody(response);
        }
        HttpUtil.setKeepAlive(response, keep);
        status = response.status().code();
        flushIfNeeded(); // raw responses before this one go first
        ctx.writeAndFlush(response).addListener((ChannelFuture f) -> finished(f, keep));
    }

    /**
     * The response to a HEAD request: {@code response}'s status and header fields without its body (RFC 9110
     * §9.3.2), which a client would read as the start of the next response, and without Content-Length:
     * RFC 9110 §8.6 allows it only with the length a GET would have had, and no path here answers HEAD as
     * it would a GET. Takes ownership of {@code response}.
     */
    private static FullHttpResponse withoutBody(FullHttpResponse response) {
        FullHttpResponse bodiless = response.replace(Unpooled.EMPTY_BUFFER);
        response.release();
        bodiless.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
        return bodiless;
    }

    /**
     * Streams a range. HTTP/1.1 gets chunked encoding (one chunk per entry) and may keep the connection;
     * HTTP/1.0 has no chunks, so the body is delimited by closing the connection.
     */
    private void stream(EntryChunkedInput body, HttpVersion version, boolean keepAlive) {
        boolean chunked = version.isKeepAliveDefault(); // HTTP/1.1 and later
        boolean keep = keepAlive && chunked && !shared.isStopping();
        HttpResponse head = Responses.rangeHead(version, chunked, body.format(), body.paged());
        HttpUtil.setKeepAlive(head, keep);
        status = head.status().code();
        ChunkedWriteHandler writer = ctx.pipeline().get(ChunkedWriteHandler.class);
        if (writer == null) {
            // the connection closed while a worker prepared the range (a client that half-closed after its
            // request) and its pipeline is torn down: end the request here, as a failed write would
            body.close();
            finished(ctx.newFailedFuture(new ClosedChannelException()), false);
            return;
        }
        body.bind(ctx.executor(), writer::resumeTransfer);
        flushIfNeeded();
        var _ = ctx.write(head); // a failure fails the body's write below too, whose listener ends the request
        ScheduledFuture<?> watchdog = watchScan(body);
        ctx.writeAndFlush(new HttpChunkedInput(body, body.lastContent())).addListener((ChannelFuture f) -> {
            watchdog.cancel(false);
            if (!f.isSuccess()) {
                body.close(); // ChunkedWriteHandler closes it too; close is idempotent
            }
            finished(f, keep);
        });
    }

    /**
     * Closes the connection of a range response whose client has taken no byte of it for the scan idle
     * timeout ({@code --scan-idle-timeout}), so that a client that stops reading does not pin the engine's
     * tables and memtables (the scan's view) for ever: closing fails the write, which closes the body and
     * its source. Checks four times per timeout on the event loop; cancelled when the response ends.
     */
    private ScheduledFuture<?> watchScan(EntryChunkedInput body) {
        long timeoutMs = shared.scanIdleTimeoutMs();
        long periodMs = Math.max(1, timeoutMs / 4);
        long[] seen = {-1, System.nanoTime()}; // progress at the last check, and when it last moved
        return ctx.executor()
                .scheduleAtFixedRate(
                        () -> {
                            long progress = body.progress();
                            long now = System.nanoTime();
                            if (progress != seen[0]) {
                                seen[0] = progress;
                                seen[1] = now;
                            } else if (now - seen[1] >= TimeUnit.MILLISECONDS.toNanos(timeoutMs)
                                    && ctx.channel().isActive()) {
                                log.warn(
                                        "closing the range response to {}: it took no byte for {} ms (--scan-idle-timeout) after "
                                                + "{} bytes; the scan's tables are released",
                                        ctx.channel().remoteAddress(),
                                        timeoutMs,
                                        progress);
                                var _ = ctx.close();
                            }
                        },
                        periodMs,
                        periodMs,
                        TimeUnit.MILLISECONDS);
    }

    /** On the event loop, when a response has been written completely (or failed). */
    private void finished(ChannelFuture write, boolean keepAlive) {
        busy = false;
        shared.requestFinished();
        record();
        if (!write.isSuccess() || !keepAlive) {
            if (!write.isSuccess()) {
                log.debug("write to {} failed", ctx.channel().remoteAddress(), write.cause());
            }
            var _ = ctx.close();
            releasePending();
            return;
        }
        processNext();
    }

    private void releasePending() {
        Object msg;
        while ((msg = pending.poll()) != null) {
            Request.release(msg);
        }
    }
}
