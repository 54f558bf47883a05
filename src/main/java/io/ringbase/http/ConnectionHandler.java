package io.ringbase.http;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection: serves each aggregated request, one at a time, so responses leave in request
 * order (HTTP/1.1 pipelining) and a connection holds at most one worker. A point request that will
 * not block ({@link RingbaseHttpServer.Shared#runsInline}) is served right here on the event loop;
 * any other goes to the worker pool.
 *
 * <p>Threading: all fields are touched on the channel's event loop only. A worker runs
 * {@link Router#handle}, then hops back to the event loop to write. While a request is being served,
 * a further (pipelined) request waits in {@link #pending} and reading from the socket pauses (auto-read
 * off) until the queue is empty again.
 * A full worker queue is answered at once with 503 from the event loop.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final RingbaseHttpServer.Shared shared;
    private final ArrayDeque<Object> pending = new ArrayDeque<>(2);
    private ChannelHandlerContext ctx;
    private boolean busy;

    ConnectionHandler(RingbaseHttpServer.Shared shared) {
        this.shared = shared;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest || msg instanceof BodyAggregator.TooLarge) {
            pending.add(msg);
            processNext();
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePending();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing connection {} after error", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }

    /** Starts the next pending request unless one is being served; resumes reading when idle. */
    private void processNext() {
        Object msg;
        while (!busy && (msg = pending.poll()) != null) {
            if (!ctx.channel().isActive()) {
                ReferenceCountUtil.release(msg);
                continue;
            }
            busy = true;
            shared.requestStarted();
            switch (msg) {
                case BodyAggregator.TooLarge t ->
                        respond(Responses.payloadTooLarge(t.version(), shared.maxBodyBytes()), t.keepAlive());
                case FullHttpRequest r when r.decoderResult().isFailure() -> {
                    log.debug("malformed request from {}: {}", ctx.channel().remoteAddress(),
                            r.decoderResult().cause().toString());
                    r.release();
                    respond(Responses.malformed(), false);
                }
                case FullHttpRequest r -> dispatch(r);
                default -> throw new IllegalStateException("unexpected " + msg);
            }
        }
        // Keep reading while at most the request being served is outstanding; stop once a pipelined
        // request has to wait, so a connection never queues more than one. Not toggling per request
        // spares two epoll_ctl calls per request for the usual, non-pipelined client.
        ctx.channel().config().setAutoRead(pending.isEmpty());
    }

    private void dispatch(FullHttpRequest request) {
        HttpVersion version = request.protocolVersion();
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !shared.isStopping();
        if (shared.runsInline(request)) {
            serve(request, version, keepAlive);
            return;
        }
        try {
            shared.workers().execute(() -> serve(request, version, keepAlive));
        } catch (RejectedExecutionException e) {
            request.release();
            respond(Responses.overloaded(version), keepAlive);
        }
    }

    /**
     * On a worker thread or the event loop: runs the request against the engine, then hands the
     * response to the event loop (directly when already on it).
     */
    private void serve(FullHttpRequest request, HttpVersion version, boolean keepAlive) {
        Outcome outcome;
        try {
            outcome = shared.api().handle(request);
        } catch (Throwable t) {
            FullHttpResponse error = Responses.error(t, version);
            onEventLoop(() -> respond(error, keepAlive), error::release);
            return;
        } finally {
            request.release();
        }
        if (outcome instanceof Outcome.Pending pending) {
            // Completes on this worker (already done) or on a replica client event loop: never block here.
            pending.result().whenComplete((done, failure) -> {
                FullHttpResponse response = failure != null ? Responses.error(failure, version)
                        : Responses.of(done, version);
                onEventLoop(() -> respond(response, keepAlive), response::release);
            });
        } else if (outcome instanceof Outcome.Range range) {
            EntryChunkedInput body = new EntryChunkedInput(range.source(), shared.workers(), ctx.alloc());
            body.prefetch(); // the first refill starts here, on the worker (a local source reads its batch here)
            onEventLoop(() -> stream(body, version, keepAlive), body::close);
        } else {
            FullHttpResponse response = Responses.of(outcome, version);
            onEventLoop(() -> respond(response, keepAlive), response::release);
        }
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
        HttpUtil.setKeepAlive(response, keep);
        ctx.writeAndFlush(response).addListener((ChannelFuture f) -> finished(f, keep));
    }

    /**
     * Streams a range. HTTP/1.1 gets chunked encoding (one chunk per entry) and may keep the connection;
     * HTTP/1.0 has no chunks, so the body is delimited by closing the connection.
     */
    private void stream(EntryChunkedInput body, HttpVersion version, boolean keepAlive) {
        boolean chunked = version.isKeepAliveDefault(); // HTTP/1.1 and later
        boolean keep = keepAlive && chunked && !shared.isStopping();
        HttpResponse head = Responses.rangeHead(version, chunked);
        HttpUtil.setKeepAlive(head, keep);
        ChunkedWriteHandler writer = ctx.pipeline().get(ChunkedWriteHandler.class);
        body.bind(ctx.executor(), writer::resumeTransfer);
        ctx.write(head);
        ctx.writeAndFlush(new HttpChunkedInput(body)).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                body.close(); // ChunkedWriteHandler closes it too; close is idempotent
            }
            finished(f, keep);
        });
    }

    /** On the event loop, when a response has been written completely (or failed). */
    private void finished(ChannelFuture write, boolean keepAlive) {
        busy = false;
        shared.requestFinished();
        if (!write.isSuccess() || !keepAlive) {
            if (!write.isSuccess()) {
                log.debug("write to {} failed", ctx.channel().remoteAddress(), write.cause());
            }
            ctx.close();
            releasePending();
            return;
        }
        processNext();
    }

    private void releasePending() {
        Object msg;
        while ((msg = pending.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }
}
