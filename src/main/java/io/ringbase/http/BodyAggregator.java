package io.ringbase.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * {@link HttpObjectAggregator} that, instead of writing its own 413, passes a {@link TooLarge} marker
 * down the pipeline, so the answer is chosen by {@link Responses} and sent in request order by
 * {@link ConnectionHandler}. The aggregator then discards the rest of the oversized body.
 *
 * <p>(A request with {@code Expect: 100-continue} and a too large {@code Content-Length} is still
 * answered by the aggregator itself, with its own bodiless 413.)
 */
final class BodyAggregator extends HttpObjectAggregator {

    /**
     * A request whose body was too large.
     *
     * @param keepAlive whether the connection can go on: only if the client asked for it and none of the
     *                  body has been read yet (the aggregator skips the rest by its Content-Length)
     */
    record TooLarge(HttpVersion version, boolean keepAlive) {
    }

    BodyAggregator(int maxBodyBytes) {
        super(maxBodyBytes);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        boolean keepAlive = !(oversized instanceof FullHttpMessage) && HttpUtil.isKeepAlive(oversized);
        ctx.fireChannelRead(new TooLarge(oversized.protocolVersion(), keepAlive));
    }
}
