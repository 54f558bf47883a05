package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.ringbase.tls.PeerCertificates;
import io.ringbase.transport.ConnectionSniffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Looks at a connection's first bytes and decides what it speaks, then removes itself (handing on the
 * bytes read so far):
 *
 * <ul>
 *   <li>the node-to-node protocol ({@link HttpApi#sniffer()}, by its first byte): its handlers replace the
 *       HTTP ones;
 *   <li>with TLS on the port, a TLS record ({@link SslHandler#isEncrypted}, which needs the
 *       {@value #TLS_RECORD_HEADER}-byte record header): an {@link SslHandler} of the current context goes
 *       in front of HTTP, and behind it another sniff for the node-to-node protocol inside TLS, served only
 *       if the peer presented a certificate signed by {@code --tls-ca} ({@link PeerCertificates}) and
 *       refused in its handshake otherwise;
 *   <li>with TLS on the port, the node-to-node protocol in plain: refused in its handshake;
 *   <li>with TLS on the port, anything else (plain HTTP): one {@code 400} saying the port speaks TLS, then
 *       the connection is closed and what it sends is discarded;
 *   <li>without TLS, anything else stays HTTP.
 * </ul>
 */
final class ProtocolSniff extends ByteToMessageDecoder {

    /** A TLS record header: content type, version (2 bytes), length (2 bytes) (RFC 8446, section 5.1). */
    static final int TLS_RECORD_HEADER = 1 + 2 + 2;

    /** The handlers of HTTP, removed when the node-to-node protocol takes the connection. */
    static final List<String> HTTP_HANDLERS = List.of("idle", "decoder", "encoder", "chunked", "api");

    static final String TLS_ONLY_MESSAGE = "this port speaks TLS: use https://\n";

    private static final byte[] TLS_ONLY_RESPONSE = ("HTTP/1.1 400 Bad Request\r\n"
                    + "content-type: text/plain; charset=utf-8\r\n"
                    + "content-length: " + TLS_ONLY_MESSAGE.length() + "\r\n"
                    + "connection: close\r\n\r\n"
                    + TLS_ONLY_MESSAGE)
            .getBytes(StandardCharsets.US_ASCII);

    private final @Nullable ConnectionSniffer sniffer;
    private final @Nullable Supplier<SslContext> tls;
    private final Executor workers;
    private final boolean insideTls;
    private boolean refused;

    /**
     * @param sniffer the node-to-node protocol, or {@code null} for none
     * @param tls     the context of a new TLS connection, or {@code null} for plain HTTP
     * @param workers where the node-to-node protocol runs work that may block
     */
    ProtocolSniff(@Nullable ConnectionSniffer sniffer, @Nullable Supplier<SslContext> tls, Executor workers) {
        this(sniffer, tls, workers, false);
    }

    private ProtocolSniff(
            @Nullable ConnectionSniffer sniffer,
            @Nullable Supplier<SslContext> tls,
            Executor workers,
            boolean insideTls) {
        this.sniffer = sniffer;
        this.tls = tls;
        this.workers = workers;
        this.insideTls = insideTls;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (!in.isReadable()) {
            return;
        }
        ChannelPipeline p = ctx.pipeline();
        if (sniffer != null && sniffer.matches(in)) {
            for (String name : HTTP_HANDLERS) {
                var _ = p.remove(name);
            }
            String refusal = null;
            if (insideTls) {
                refusal = PeerCertificates.refusal(ctx.channel(), "a node-to-node v2 connection");
            } else if (tls != null) {
                refusal = PeerCertificates.plainRefusal(ctx.channel(), "a node-to-node v2 connection");
            }
            sniffer.install(p, workers, refusal);
            var _ = p.remove(this);
            return;
        }
        if (tls == null) {
            var _ = p.remove(this); // HTTP
            return;
        }
        if (in.readableBytes() < TLS_RECORD_HEADER) {
            return; // a slow client: the idle timeout bounds the wait
        }
        if (SslHandler.isEncrypted(in, false)) {
            SslHandler ssl = tls.get().newHandler(ctx.alloc());
            var _ = p.addAfter(ctx.name(), "tls", ssl);
            if (sniffer != null) {
                var _ = p.addAfter("tls", "sniff-in-tls", new ProtocolSniff(sniffer, null, workers, true));
            }
            var _ = p.remove(this);
            return;
        }
        refused = true;
        in.skipBytes(in.readableBytes());
        var _ = ctx.writeAndFlush(Unpooled.wrappedBuffer(TLS_ONLY_RESPONSE)).addListener(ChannelFutureListener.CLOSE);
    }
}
