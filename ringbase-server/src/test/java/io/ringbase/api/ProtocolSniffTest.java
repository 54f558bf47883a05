package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.PeerCertificates;
import io.ringbase.transport.ConnectionSniffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** {@link ProtocolSniff} on a TLS port, in memory: what a TLS record and what plain HTTP get. */
class ProtocolSniffTest {

    private static EmbeddedChannel channel(Supplier<SslContext> tls) {
        return channel(null, tls);
    }

    private static EmbeddedChannel channel(@Nullable ConnectionSniffer wire, @Nullable Supplier<SslContext> tls) {
        EmbeddedChannel ch = new EmbeddedChannel();
        for (String name : ProtocolSniff.HTTP_HANDLERS) {
            ch.pipeline().addLast(name, new ChannelInboundHandlerAdapter());
        }
        ch.pipeline().addFirst("sniff", new ProtocolSniff(wire, tls, Runnable::run));
        return ch;
    }

    private static SslContext serverContext() throws Exception {
        TestCertificates ca = new TestCertificates("test-ca");
        TestCertificates.Issued node = ca.issue("node");
        return SslContextBuilder.forServer(node.keys().getPrivate(), node.certificate())
                .build();
    }

    @Test
    void plainHttpOnATlsPortGetsOne400AndIsClosed() throws Exception {
        SslContext context = serverContext();
        EmbeddedChannel ch = channel(() -> context);
        ch.writeInbound(Unpooled.copiedBuffer("GET /health HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII));
        ByteBuf answer = ch.readOutbound();
        String text = answer.toString(StandardCharsets.US_ASCII);
        answer.release();
        assertThat(text).startsWith("HTTP/1.1 400 Bad Request\r\n").endsWith("this port speaks TLS: use https://\n");
        assertThat(ch.isOpen()).isFalse();
        assertThat(ch.pipeline().get(SslHandler.class)).isNull();
    }

    /** A node-to-node protocol that records the refusal it is installed with. */
    private static final class Recording implements ConnectionSniffer {
        @Nullable
        String refusal = "not installed";

        @Override
        public boolean matches(byte first) {
            return first == (byte) 0x89;
        }

        @Override
        public void install(ChannelPipeline pipeline, Executor workers, @Nullable String refusal) {
            this.refusal = refusal;
        }
    }

    @Test
    void theNodeToNodeProtocolInPlainOnATlsPortIsInstalledToBeRefused() throws Exception {
        SslContext context = serverContext();
        Recording wire = new Recording();
        EmbeddedChannel ch = channel(wire, () -> context);
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0x89, 'R', 'B', 'W'}));
        assertThat(wire.refusal).startsWith("this port speaks TLS: ").endsWith(PeerCertificates.REFUSAL);
        var _ = ch.finishAndReleaseAll();
    }

    @Test
    void theNodeToNodeProtocolOnAPlainPortIsServed() {
        Recording wire = new Recording();
        EmbeddedChannel ch = channel(wire, null);
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0x89, 'R', 'B', 'W'}));
        assertThat(wire.refusal).isNull();
        var _ = ch.finishAndReleaseAll();
    }

    @Test
    void aTlsRecordHeaderGetsAnSslHandlerOnceFiveBytesAreIn() throws Exception {
        SslContext context = serverContext();
        EmbeddedChannel ch = channel(() -> context);
        // a handshake record (22), TLS 1.0 record version, 512 bytes to come
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {22, 3}));
        assertThat(ch.pipeline().get(SslHandler.class))
                .as("4 bytes short of a header: wait")
                .isNull();
        assertThat(ch.isOpen()).isTrue();
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 0}));
        assertThat(ch.pipeline().get(SslHandler.class)).isNotNull();
        assertThat(ch.pipeline().get("sniff")).isNull();
        assertThat(ch.isOpen()).isTrue();
        var _ = ch.finishAndReleaseAll();
    }
}
