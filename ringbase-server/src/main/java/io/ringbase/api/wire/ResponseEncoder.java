package io.ringbase.api.wire;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseEncoder;

/**
 * Netty's {@link HttpResponseEncoder} for response objects (errors, internal and admin answers, the
 * head and chunks of a streamed range), which also lets a plain {@link ByteBuf} through untouched: a
 * complete response {@link RawResponses} wrote. Netty's own encoder refuses a plain buffer between
 * responses. The connection handler writes one response at a time, so a raw one never lands inside a
 * streamed one.
 */
public final class ResponseEncoder extends HttpResponseEncoder {

    @Override
    public boolean acceptOutboundMessage(Object msg) throws Exception {
        return !(msg instanceof ByteBuf) && super.acceptOutboundMessage(msg);
    }
}
