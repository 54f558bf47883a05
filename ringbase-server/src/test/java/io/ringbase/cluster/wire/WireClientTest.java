package io.ringbase.cluster.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.logging.LogCapture;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.transport.Transport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordinator's client against a scripted peer on loopback: a call that times out fails alone,
 * a peer with another secret or one that speaks only HTTP leaves calls on HTTP.
 */
@IntegrationTest
@Timeout(30)
class WireClientTest {

    @RegisterExtension
    final LogCapture clientLog = new LogCapture(ClientConnection.class);

    @RegisterExtension
    final LogCapture decoderLog = new LogCapture(FrameDecoder.class);

    private static final long TIMEOUT_MS = 300;
    private final EventLoopGroup group = Transport.newEventLoopGroup(2, "wire-client-test");
    private final PeerCallStats stats = new PeerCallStats(TimeSource.SYSTEM);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** A peer on loopback whose connections are handled by {@code handler}; its node id. */
    private NodeId peer(java.util.function.Supplier<io.netty.channel.ChannelHandler> handler) {
        Channel server = new ServerBootstrap()
                .group(group)
                .channel(Transport.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(handler.get());
                    }
                })
                .bind("127.0.0.1", 0)
                .syncUninterruptibly()
                .channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        List<String> urls = List.of("http://127.0.0.1:1", "http://127.0.0.1:" + port);
        return Topology.parse(urls, urls.get(0)).nodes().get(1);
    }

    /** A v2 peer that proves {@code secret} and answers each READ with {@code answer} (null: never). */
    private static ChannelInboundHandlerAdapter scripted(RequestSigner secret, Function<String, Byte> answer) {
        return new ChannelInboundHandlerAdapter() {
            byte[] clientNonce = new byte[0];
            final byte[] nonce = Handshake.nonce();

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                FrameDecoder.Frame f = (FrameDecoder.Frame) msg;
                try {
                    switch (f.op()) {
                        case WireFormat.OP_CLIENT_HELLO -> {
                            clientNonce = Handshake.clientHello(f.body()).nonce();
                            var _ = ctx.write(Unpooled.wrappedBuffer(WireFormat.MAGIC));
                            var _ = ctx.writeAndFlush(Handshake.encode(
                                    ctx.alloc(),
                                    new Handshake.ServerHello(
                                            1, "c", nonce, Handshake.serverProof(secret, clientNonce, nonce, 1))));
                        }
                        case WireFormat.OP_CLIENT_AUTH -> {
                            var _ = ctx.writeAndFlush(Handshake.ready(ctx.alloc()));
                        }
                        case WireFormat.OP_READ -> {
                            Byte op = answer.apply(f.body().toString(StandardCharsets.UTF_8));
                            if (op != null) {
                                var _ = ctx.writeAndFlush(
                                        WireFormat.seal(WireFormat.frame(ctx.alloc(), f.id(), op, 0)));
                            }
                        }
                        default -> {}
                    }
                } finally {
                    f.body().release();
                }
            }
        };
    }

    private WireClient client(RequestSigner signer) {
        return new WireClient(
                TIMEOUT_MS, signer, group, new WireClient.Identity("c", "http://127.0.0.1:1", "d"), stats);
    }

    /** Calls until one goes over v2 (the first ones open the connection and return null). */
    private static CompletableFuture<Entry> readOverV2(WireClient client, NodeId node, String key) {
        LocalCluster.await(Duration.ofSeconds(10), "a v2 connection", () -> client.connected(node));
        CompletableFuture<Entry> f = client.read(node, key.getBytes(StandardCharsets.UTF_8));
        assertThat(f).as("a call on a ready connection goes over v2").isNotNull();
        return f;
    }

    @Test
    void callThatTimesOutFailsAloneAndTheConnectionStays() throws Exception {
        NodeId node = peer(() -> new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline()
                        .addLast(new FrameDecoder("peer", true))
                        .addLast(scripted(RequestSigner.NONE, key -> key.equals("slow") ? null : WireFormat.OP_ABSENT));
            }
        });
        try (WireClient client = client(RequestSigner.NONE)) {
            var _ = client.read(node, new byte[] {1}); // opens the connection
            CompletableFuture<Entry> slow = readOverV2(client, node, "slow");
            CompletableFuture<Entry> fast = readOverV2(client, node, "fast");
            assertThat(fast.get(5, TimeUnit.SECONDS)).isNull(); // answered while the slow one waits
            try {
                slow.get(5, TimeUnit.SECONDS);
                throw new AssertionError("the unanswered call did not time out");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(ReplicaException.Timeout.class);
            }
            assertThat(client.connected(node))
                    .as("a timeout does not close the connection")
                    .isTrue();
            assertThat(readOverV2(client, node, "after").get(5, TimeUnit.SECONDS))
                    .isNull();
            PeerCallStats.Snapshot s = stats.snapshot(node);
            assertThat(s.timeouts()).isEqualTo(1);
            assertThat(s.ok()).isEqualTo(2);
        }
    }

    @Test
    void peerSlowToAnswerItsFirstHandshakeGetsV2AfterASecond() {
        java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
        NodeId node = peer(() -> new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (connections.getAndIncrement() == 0) {
                    return; // the first connection reads the magic and hello and answers nothing
                }
                ch.pipeline()
                        .addLast(new FrameDecoder("peer", true))
                        .addLast(scripted(RequestSigner.NONE, key -> WireFormat.OP_ABSENT));
            }
        });
        EventLoopGroup one = Transport.newEventLoopGroup(1, "wire-client-test-one"); // one loop: one retry timer
        try (WireClient client = new WireClient(
                TIMEOUT_MS, RequestSigner.NONE, one, new WireClient.Identity("c", "http://127.0.0.1:1", "d"), stats)) {
            assertThat(client.read(node, new byte[] {1})).isNull();
            LocalCluster.await(
                    Duration.ofSeconds(10),
                    "the handshake timeout",
                    () -> !clientLog.warningMessages().isEmpty());
            assertThat(clientLog.warningMessages())
                    .singleElement()
                    .asString()
                    .contains("did not complete the handshake within " + TIMEOUT_MS + " ms")
                    .contains("next try in 1 s");
            LocalCluster.await(Duration.ofSeconds(10), "v2 after the retry", () -> {
                var _ = client.read(node, new byte[] {1}); // opens the next connection once the retry time came
                return client.connected(node);
            });
            assertThat(connections.get()).isEqualTo(2);
        } finally {
            one.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void handshakeTimeoutsInARowBackOffUpToTheRefusalWait() {
        assertThat(WireClient.handshakeRetryMs(0)).isEqualTo(WireClient.RETRY_BROKEN_MS);
        assertThat(WireClient.handshakeRetryMs(1)).isEqualTo(2 * WireClient.RETRY_BROKEN_MS);
        assertThat(WireClient.handshakeRetryMs(5)).isEqualTo(32 * WireClient.RETRY_BROKEN_MS);
        assertThat(WireClient.handshakeRetryMs(6)).isEqualTo(WireClient.RETRY_REFUSED_MS);
        assertThat(WireClient.handshakeRetryMs(30)).isEqualTo(WireClient.RETRY_REFUSED_MS);
    }

    @Test
    void peerWithAnotherSecretLeavesCallsOnHttp() {
        NodeId node = peer(() -> new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline()
                        .addLast(new FrameDecoder("peer", true))
                        .addLast(scripted(
                                new RequestSigner("the-peer-secret-16".getBytes(StandardCharsets.UTF_8)),
                                key -> WireFormat.OP_ABSENT));
            }
        });
        try (WireClient client = client(new RequestSigner("this-node-secret-16".getBytes(StandardCharsets.UTF_8)))) {
            assertThat(client.read(node, new byte[] {1})).isNull();
            LocalCluster.await(
                    Duration.ofSeconds(10),
                    "a refusal",
                    () -> !clientLog.warningMessages().isEmpty());
            assertThat(clientLog.warningMessages())
                    .singleElement()
                    .asString()
                    .contains(node.toString())
                    .contains("does not match this node's cluster secret")
                    .contains("go over HTTP");
            assertThat(client.connected(node)).isFalse();
            assertThat(client.read(node, new byte[] {1}))
                    .as("HTTP until the retry")
                    .isNull();
        }
    }

    @Test
    void peerThatSpeaksOnlyHttpLeavesCallsOnHttp() {
        NodeId node = peer(() -> new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
                var _ = ctx.writeAndFlush(
                                Unpooled.copiedBuffer("HTTP/1.1 400 Bad Request\r\n\r\n", StandardCharsets.US_ASCII))
                        .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
            }
        });
        try (WireClient client = client(RequestSigner.NONE)) {
            assertThat(client.read(node, new byte[] {1})).isNull();
            LocalCluster.await(
                    Duration.ofSeconds(10),
                    "the HTTP answer",
                    () -> !decoderLog.warningMessages().isEmpty());
            assertThat(decoderLog.warningMessages()).singleElement().asString().contains("does not speak v2");
            assertThat(client.connected(node)).isFalse();
            assertThat(client.read(node, new byte[] {1})).isNull();
        }
    }
}
