package io.ringbase.cluster.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbase.api.InMemoryEngine;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.rpc.MetadataEndpoint;
import io.ringbase.cluster.rpc.PeerGate;
import io.ringbase.cluster.rpc.ReplicaServer;
import io.ringbase.logging.LogCapture;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The replica's side of a v2 connection in memory: the handshake's refusals (secret, version, cluster,
 * membership) and the calls served through {@link ReplicaServer} once it is ready.
 */
class ServerConnectionTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(ServerConnection.class);

    private static final List<String> URLS = List.of("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3");
    private static final Topology TOPOLOGY = Topology.parse(URLS, URLS.get(0));
    private static final Membership MINE = Membership.of("c", TOPOLOGY);
    private static final RequestSigner SECRET = new RequestSigner(bytes("0123456789abcdef-secret"));
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private final InMemoryEngine engine = new InMemoryEngine();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private EmbeddedChannel server(RequestSigner signer) {
        ReplicaServer replica = new ReplicaServer(
                engine,
                new HybridLogicalClock(),
                signer,
                TimeSource.SYSTEM,
                () -> Placement.of(TOPOLOGY),
                new RepairSource(engine, new Ring(TOPOLOGY), TOPOLOGY.self(), 3),
                PeerGate.of(URLS.get(0), MINE, () -> null, (url, inc, state) -> HelloSender.Answer.NONE),
                MetadataEndpoint.NONE);
        EmbeddedChannel ch = new EmbeddedChannel();
        new WireServer(replica, signer, "c").install(ch.pipeline(), Runnable::run, null);
        return ch;
    }

    /** Decodes what the server wrote; keeps the magic state across reads. */
    private final EmbeddedChannel answers = new EmbeddedChannel(new FrameDecoder("test", true));

    private FrameDecoder.@Nullable Frame next(EmbeddedChannel server) {
        server.runPendingTasks();
        ByteBuf out;
        while ((out = server.readOutbound()) != null) {
            answers.writeInbound(out);
        }
        return answers.readInbound();
    }

    private byte[] hello(EmbeddedChannel ch, int min, int max, String cluster, String membership) {
        byte[] nonce = Handshake.nonce();
        ch.writeInbound(Unpooled.wrappedBuffer(WireFormat.MAGIC));
        ch.writeInbound(Handshake.encode(
                ALLOC, new Handshake.ClientHello(min, max, cluster, URLS.get(1), membership, 0, nonce)));
        return nonce;
    }

    /** Runs a handshake proving {@code client}'s secret; the server's answer to the proof. */
    private FrameDecoder.Frame handshake(EmbeddedChannel ch, RequestSigner client) {
        byte[] c = hello(ch, 1, 1, "c", MINE.digestHex());
        FrameDecoder.Frame sh = next(ch);
        assertThat(sh.op()).isEqualTo(WireFormat.OP_SERVER_HELLO);
        Handshake.ServerHello h = Handshake.serverHello(sh.body());
        assertThat(h.version()).isEqualTo(1);
        ch.writeInbound(Handshake.auth(ALLOC, Handshake.clientProof(client, c, h.nonce(), h.version())));
        return next(ch);
    }

    private static String reason(FrameDecoder.Frame f) {
        return WireFormat.readString(f.body());
    }

    @Test
    void aConnectionRefusedAtInstallGetsMagicAndRefusedAtOnceAndIsClosed() {
        ReplicaServer replica = new ReplicaServer(
                engine,
                new HybridLogicalClock(),
                SECRET,
                TimeSource.SYSTEM,
                () -> Placement.of(TOPOLOGY),
                new RepairSource(engine, new Ring(TOPOLOGY), TOPOLOGY.self(), 3),
                PeerGate.of(URLS.get(0), MINE, () -> null, (url, inc, state) -> HelloSender.Answer.NONE),
                MetadataEndpoint.NONE);
        EmbeddedChannel ch = new EmbeddedChannel();
        new WireServer(replica, SECRET, "c").install(ch.pipeline(), Runnable::run, "no client certificate");
        FrameDecoder.Frame refused = next(ch); // before any hello
        assertThat(refused.op()).isEqualTo(WireFormat.OP_REFUSED);
        assertThat(reason(refused)).isEqualTo("no client certificate");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void provenSecretGetsReadyAndCallsAreServed() {
        EmbeddedChannel ch = server(SECRET);
        assertThat(handshake(ch, SECRET).op()).isEqualTo(WireFormat.OP_READY);

        Entry e = Entry.value(bytes("k"), 5, bytes("v"));
        ByteBuf write = WireFormat.frame(ALLOC, 1, WireFormat.OP_WRITE, (int) WireFormat.entrySize(e));
        WireFormat.writeEntry(write, e);
        ch.writeInbound(WireFormat.seal(write));
        FrameDecoder.Frame written = next(ch);
        assertThat(written.id()).isEqualTo(1);
        assertThat(written.op()).isEqualTo(WireFormat.OP_VERSION_IS);
        assertThat(written.body().readLongLE()).isEqualTo(5);

        ch.writeInbound(keyFrame(2, WireFormat.OP_READ, "k"));
        FrameDecoder.Frame found = next(ch);
        assertThat(found.op()).isEqualTo(WireFormat.OP_FOUND);
        assertThat(WireFormat.readEntry(found.body())).isEqualTo(e);

        ch.writeInbound(keyFrame(3, WireFormat.OP_VERSION, "k"));
        assertThat(next(ch).body().readLongLE()).isEqualTo(5);
        ch.writeInbound(keyFrame(4, WireFormat.OP_READ, "missing"));
        assertThat(next(ch).op()).isEqualTo(WireFormat.OP_ABSENT);
        ch.writeInbound(WireFormat.seal(WireFormat.frame(ALLOC, 5, WireFormat.OP_PING, 0)));
        FrameDecoder.Frame pong = next(ch);
        assertThat(pong.op()).isEqualTo(WireFormat.OP_PONG);
        assertThat(pong.body().readableBytes()).isZero();

        ch.writeInbound(keyFrame(6, (byte) 0x7E, "?"));
        FrameDecoder.Frame unknown = next(ch);
        assertThat(unknown.op()).isEqualTo(WireFormat.OP_ERROR);
        assertThat(unknown.body().readUnsignedByte()).isEqualTo((short) WireFormat.ERR_UNKNOWN_OP);
        assertThat(ch.isOpen()).isTrue(); // an unknown call fails alone
    }

    private static ByteBuf keyFrame(int id, byte op, String key) {
        ByteBuf f = WireFormat.frame(ALLOC, id, op, key.length());
        f.writeBytes(bytes(key));
        return WireFormat.seal(f);
    }

    @Test
    void aHandshakeStalledPastItsTimeoutIsClosedWithALogLine() {
        EmbeddedChannel ch = server(SECRET);
        ch.freezeTime();
        ch.writeInbound(Unpooled.wrappedBuffer(WireFormat.MAGIC)); // and then nothing
        ch.advanceTimeBy(WireServer.HANDSHAKE_TIMEOUT_MS - 1, java.util.concurrent.TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(2, java.util.concurrent.TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages())
                .singleElement()
                .asString()
                .contains("did not complete the handshake within " + WireServer.HANDSHAKE_TIMEOUT_MS + " ms");
    }

    @Test
    void aPeerThatClosedMidHandshakeIsNotReportedAsStalled() {
        EmbeddedChannel ch = server(SECRET);
        ch.freezeTime();
        ch.writeInbound(Unpooled.wrappedBuffer(WireFormat.MAGIC));
        // The client gave up on its own, shorter, deadline. An embedded channel's close would cancel the
        // deadline task, which a socket channel's does not: so only the event is fired.
        var _ = ch.pipeline().fireChannelInactive();
        ch.advanceTimeBy(WireServer.HANDSHAKE_TIMEOUT_MS + 1, java.util.concurrent.TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(log.warningMessages()).isEmpty();
    }

    @Test
    void aReadyConnectionIsClosedOnlyAfterItsPeerFellSilentForTheIdleTimeout() {
        EmbeddedChannel ch = server(SECRET);
        ch.freezeTime();
        assertThat(handshake(ch, SECRET).op()).isEqualTo(WireFormat.OP_READY);
        long step = WireClient.KEEPALIVE_MS;
        for (int i = 0; i < 5; i++) { // keep-alive pings every KEEPALIVE_MS hold it open, past the timeout
            ch.advanceTimeBy(step, java.util.concurrent.TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            ch.writeInbound(WireFormat.seal(WireFormat.frame(ALLOC, 0, WireFormat.OP_PING, 0)));
            assertThat(next(ch).op()).isEqualTo(WireFormat.OP_PONG);
        }
        assertThat(5 * step).isGreaterThan(WireServer.IDLE_TIMEOUT_MS);
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(WireServer.IDLE_TIMEOUT_MS + 1, java.util.concurrent.TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("sent nothing for");
    }

    @Test
    void wrongSecretIsRefusedWithALogLineAndClosed() {
        EmbeddedChannel ch = server(SECRET);
        FrameDecoder.Frame answer = handshake(ch, new RequestSigner(bytes("another-secret-of-16")));
        assertThat(answer.op()).isEqualTo(WireFormat.OP_REFUSED);
        assertThat(reason(answer)).contains("does not match this node's cluster secret");
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("node " + URLS.get(1));
    }

    @Test
    void peerWithoutSecretIsRefusedByANodeWithOne() {
        EmbeddedChannel ch = server(SECRET);
        FrameDecoder.Frame answer = handshake(ch, RequestSigner.NONE);
        assertThat(reason(answer)).contains("proved no cluster secret");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void nodeWithoutSecretAcceptsAnyPeerAsHttpDoes() {
        EmbeddedChannel ch = server(RequestSigner.NONE);
        assertThat(handshake(ch, RequestSigner.NONE).op()).isEqualTo(WireFormat.OP_READY);
    }

    @Test
    void noCommonVersionIsRefused() {
        EmbeddedChannel ch = server(SECRET);
        hello(ch, 3, 4, "c", MINE.digestHex());
        FrameDecoder.Frame answer = next(ch);
        assertThat(answer.op()).isEqualTo(WireFormat.OP_REFUSED);
        assertThat(reason(answer)).contains("no common protocol version: it speaks 3..4, this node 1..2");
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("no common protocol version");
    }

    @Test
    void newerPeerSpeaksTheCommonVersion() {
        EmbeddedChannel ch = server(SECRET);
        hello(ch, 1, 3, "c", MINE.digestHex());
        FrameDecoder.Frame answer = next(ch);
        assertThat(answer.op()).isEqualTo(WireFormat.OP_SERVER_HELLO);
        assertThat(Handshake.serverHello(answer.body()).version()).isEqualTo(2);
    }

    @Test
    void olderPeerSpeaksVersionOne() {
        EmbeddedChannel ch = server(SECRET);
        hello(ch, 1, 1, "c", MINE.digestHex());
        FrameDecoder.Frame answer = next(ch);
        assertThat(answer.op()).isEqualTo(WireFormat.OP_SERVER_HELLO);
        assertThat(Handshake.serverHello(answer.body()).version()).isEqualTo(1);
    }

    @Test
    void otherClusterAndOtherMembershipAreRefused() {
        EmbeddedChannel other = server(SECRET);
        hello(other, 1, 1, "d", MINE.digestHex());
        assertThat(reason(next(other))).contains("cluster 'd'");
        var _ = answers.close();
        EmbeddedChannel moved = server(SECRET);
        EmbeddedChannel fresh = new EmbeddedChannel(new FrameDecoder("test", true));
        hello(moved, 1, 1, "c", "0123456789abcdef");
        moved.runPendingTasks();
        ByteBuf out;
        while ((out = moved.readOutbound()) != null) {
            fresh.writeInbound(out);
        }
        FrameDecoder.Frame f = fresh.readInbound();
        assertThat(reason(f)).contains("membership mismatch");
        assertThat(moved.isOpen()).isFalse();
    }

    @Test
    void corruptedCallClosesTheConnectionAndWritesNothing() throws Exception {
        EmbeddedChannel ch = server(SECRET);
        assertThat(handshake(ch, SECRET).op()).isEqualTo(WireFormat.OP_READY);
        Entry e = Entry.value(bytes("k"), 5, bytes("v"));
        ByteBuf write = WireFormat.frame(ALLOC, 1, WireFormat.OP_WRITE, (int) WireFormat.entrySize(e));
        WireFormat.writeEntry(write, e);
        WireFormat.seal(write);
        write.setByte(write.writerIndex() - 1, 'w'); // the value's byte, after the CRC was taken
        ch.writeInbound(write);
        assertThat(ch.isOpen()).isFalse();
        assertThat(engine.get(bytes("k"))).isNull();
    }
}
