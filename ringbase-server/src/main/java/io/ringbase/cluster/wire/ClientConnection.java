package io.ringbase.cluster.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.collection.IntObjectHashMap;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of the binary protocol to one peer, on one event loop: runs the client's side
 * of the handshake, then sends calls with fresh request ids, keeps them in flight by id, and completes
 * each from its own answer. A flush is asked once per loop turn. Used on its loop only, except
 * {@link #acceptsCalls()}.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);

    private enum State {
        CONNECTING,
        HELLO_SENT,
        AUTH_SENT,
        READY,
        CLOSED
    }

    private final WireClient client;
    private final NodeId node;
    private final int loop;
    private final IntObjectHashMap<Call> inFlight = new IntObjectHashMap<>();
    private final Runnable flush = this::flush;
    private final byte[] nonce = Handshake.nonce();
    private State state = State.CONNECTING;
    private volatile boolean ready;
    private volatile int inFlightCount;
    private @Nullable Channel channel;
    private int version;
    private int nextId;
    private boolean flushPending;
    private long epochSent;
    private long retryMs = WireClient.RETRY_BROKEN_MS;

    ClientConnection(WireClient client, NodeId node, int loop) {
        this.client = client;
        this.node = node;
        this.loop = loop;
    }

    /** Whether the negotiated version has the PAXOS call. */
    boolean speaksPaxos() {
        return version >= WireFormat.PAXOS_VERSION;
    }

    /** Whether calls may be sent now (any thread): ready, not too many in flight, the socket keeping up. */
    boolean acceptsCalls() {
        Channel ch = channel;
        return ready && inFlightCount < WireClient.MAX_IN_FLIGHT && ch != null && ch.isWritable();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        epochSent = client.epoch();
        var _ = ctx.write(Unpooled.wrappedBuffer(WireFormat.MAGIC));
        var _ = ctx.writeAndFlush(Handshake.encode(
                ctx.alloc(),
                new Handshake.ClientHello(
                        WireFormat.MIN_VERSION,
                        WireFormat.MAX_VERSION,
                        client.me.clusterName(),
                        client.me.selfUrl(),
                        client.me.membership(),
                        epochSent,
                        nonce)));
        state = State.HELLO_SENT;
        var _ = ctx.executor()
                .schedule(
                        () -> {
                            if (state == State.HELLO_SENT || state == State.AUTH_SENT) {
                                // A slow peer (starting, paused, overloaded), not a refusal: an HTTP-only node
                                // answers the magic at once. So try again soon, backing off while it lasts.
                                ended(
                                        ctx,
                                        "did not complete the handshake within " + client.handshakeTimeoutMs() + " ms",
                                        client.handshakeTimedOut(node, loop));
                            }
                        },
                        client.handshakeTimeoutMs(),
                        TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FrameDecoder.Frame frame)) {
            io.netty.util.ReferenceCountUtil.release(msg);
            return;
        }
        ByteBuf body = frame.body();
        try {
            switch (state) {
                case HELLO_SENT -> serverHello(ctx, frame.op(), body);
                case AUTH_SENT -> {
                    if (frame.op() == WireFormat.OP_READY) {
                        state = State.READY;
                        ready = true;
                        client.handshakeDone(node, loop);
                        log.debug("node-to-node v2 connection to {} ready (version {})", node, version);
                    } else {
                        handshakeAnswer(ctx, frame.op(), body, "READY");
                    }
                }
                case READY -> answer(frame.id(), frame.op(), body);
                default -> {} // closing
            }
        } catch (IllegalArgumentException e) {
            refused(ctx, "sent an undecodable handshake: " + e.getMessage());
        } finally {
            body.release();
        }
    }

    private void serverHello(ChannelHandlerContext ctx, byte op, ByteBuf body) {
        if (op != WireFormat.OP_SERVER_HELLO) {
            handshakeAnswer(ctx, op, body, "SERVER_HELLO");
            return;
        }
        Handshake.ServerHello hello = Handshake.serverHello(body);
        if (hello.version() < WireFormat.MIN_VERSION || hello.version() > WireFormat.MAX_VERSION) {
            refused(ctx, "chose protocol version " + hello.version() + ", which this node does not speak");
            return;
        }
        if (!hello.cluster().equals(client.me.clusterName())) {
            refused(ctx, "is of cluster '" + hello.cluster() + "', this node of '" + client.me.clusterName() + "'");
            return;
        }
        version = hello.version();
        String bad = Handshake.proofRefusal(
                client.signer, hello.proof(), Handshake.serverProof(client.signer, nonce, hello.nonce(), version));
        if (bad != null) {
            refused(ctx, bad);
            return;
        }
        var _ = ctx.writeAndFlush(
                Handshake.auth(ctx.alloc(), Handshake.clientProof(client.signer, nonce, hello.nonce(), version)));
        state = State.AUTH_SENT;
    }

    /** A handshake frame other than the expected one: a refusal (logged with its reason) or an error. */
    private void handshakeAnswer(ChannelHandlerContext ctx, byte op, ByteBuf body, String expected) {
        if (op == WireFormat.OP_REFUSED) {
            refused(ctx, "refused the connection: " + WireFormat.readString(body));
        } else {
            refused(ctx, "answered opcode 0x" + Integer.toHexString(op & 0xFF) + " instead of " + expected);
        }
    }

    /** Ends the handshake of a peer that refused it or does not speak v2: HTTP for {@link WireClient#RETRY_REFUSED_MS}. */
    private void refused(ChannelHandlerContext ctx, String why) {
        ended(ctx, why, WireClient.RETRY_REFUSED_MS);
    }

    /** Ends the handshake: one WARN line, close, and HTTP for this peer until the retry in {@code retryMs}. */
    private void ended(ChannelHandlerContext ctx, String why, long retryMs) {
        log.warn(
                "node-to-node v2 connection to {}: the node {}; its calls go over HTTP, next try in {} s",
                node,
                why,
                retryMs / 1000);
        this.retryMs = retryMs;
        var _ = ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (state == State.READY) { // a keep-alive: id 0 is never a call's, so its PONG is dropped
                var _ = ctx.writeAndFlush(
                        WireFormat.seal(WireFormat.frame(ctx.alloc(), 0, WireFormat.OP_PING, 0)), ctx.voidPromise());
            }
            return;
        }
        if (evt instanceof FrameDecoder.Broken && state != State.READY) {
            retryMs = WireClient.RETRY_REFUSED_MS; // not v2 (an HTTP-only node) or broken in the handshake
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** On the loop: sends {@code call}, or fails it if this connection is no longer ready. */
    void send(Call call) {
        Channel ch = channel;
        if (state != State.READY || ch == null) {
            call.fail(WireClient.failed(node, "v2 connection closed before the call was sent"));
            return;
        }
        int id = ++nextId == 0 ? ++nextId : nextId;
        call.id = id;
        call.connection = this;
        ByteBuf frame = switch (call.kind) {
            case READ -> keyFrame(ch, id, WireFormat.OP_READ, call.key);
            case VERSION -> keyFrame(ch, id, WireFormat.OP_VERSION, call.key);
            case WRITE -> {
                var e = java.util.Objects.requireNonNull(call.entry);
                ByteBuf out = WireFormat.frame(ch.alloc(), id, WireFormat.OP_WRITE, (int) WireFormat.entrySize(e));
                WireFormat.writeEntry(out, e);
                yield WireFormat.seal(out);
            }
            case PING -> WireFormat.seal(WireFormat.frame(ch.alloc(), id, WireFormat.OP_PING, 0));
            case PAXOS -> keyFrame(ch, id, WireFormat.OP_PAXOS, call.key);
        };
        call.key = null; // encoded: a call waiting for its answer holds no value
        call.entry = null;
        inFlight.put(id, call);
        inFlightCount = inFlight.size();
        client.deadlines(loop).add(call);
        var _ = ch.write(frame, ch.voidPromise());
        if (!flushPending) {
            flushPending = true;
            ch.eventLoop().execute(flush); // after this turn's I/O: one flush for every call of the turn
        }
    }

    private static ByteBuf keyFrame(Channel ch, int id, byte op, byte @Nullable [] key) {
        byte[] k = java.util.Objects.requireNonNull(key);
        ByteBuf out = WireFormat.frame(ch.alloc(), id, op, k.length);
        out.writeBytes(k);
        return WireFormat.seal(out);
    }

    private void flush() {
        flushPending = false;
        Channel ch = channel;
        if (ch == null) {
            return;
        }
        long now = client.epoch();
        if (now != epochSent) { // a node behind learns of the newer metadata as with x-rb-epoch
            epochSent = now;
            ByteBuf notice = WireFormat.frame(ch.alloc(), 0, WireFormat.OP_EPOCH, 8);
            notice.writeLongLE(now);
            var _ = ch.write(WireFormat.seal(notice), ch.voidPromise());
        }
        ch.flush();
    }

    /** Completes the call {@code id} from its answer; an answer to a call that timed out is dropped. */
    private void answer(int id, byte op, ByteBuf body) {
        Call call = inFlight.remove(id);
        inFlightCount = inFlight.size();
        if (call == null) {
            return;
        }
        try {
            switch (op) {
                case WireFormat.OP_FOUND -> {
                    if (call.kind != Call.Kind.READ) {
                        misfit(call, op);
                    } else {
                        call.succeed(WireFormat.readEntry(body));
                    }
                }
                case WireFormat.OP_ABSENT -> {
                    switch (call.kind) {
                        case READ -> call.succeed(null);
                        case VERSION -> call.succeed(Replica.NO_VERSION);
                        default -> misfit(call, op);
                    }
                }
                case WireFormat.OP_VERSION_IS -> {
                    if ((call.kind != Call.Kind.VERSION && call.kind != Call.Kind.WRITE) || body.readableBytes() != 8) {
                        misfit(call, op);
                    } else {
                        call.succeed(body.readLongLE());
                    }
                }
                case WireFormat.OP_PONG -> {
                    if (call.kind != Call.Kind.PING) {
                        misfit(call, op);
                    } else {
                        call.succeed(body.isReadable() ? body.toString(StandardCharsets.UTF_8) : null);
                    }
                }
                case WireFormat.OP_PAXOS_REPLY -> {
                    if (call.kind != Call.Kind.PAXOS) {
                        misfit(call, op);
                    } else {
                        byte[] reply = new byte[body.readableBytes()];
                        body.readBytes(reply);
                        call.succeed(reply);
                    }
                }
                case WireFormat.OP_ERROR -> {
                    int code = body.readUnsignedByte();
                    String reason = WireFormat.readString(body);
                    call.answeredFailure(new ReplicaException.Failed(
                            node, "v2 " + call.kind + " answered error " + code + ": " + reason, null));
                }
                default -> misfit(call, op);
            }
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            call.answeredFailure(new ReplicaException.Failed(node, "undecodable v2 answer to " + call.kind, e));
        }
    }

    private void misfit(Call call, byte op) {
        call.answeredFailure(new ReplicaException.Failed(
                node, "v2 answer 0x" + Integer.toHexString(op & 0xFF) + " does not fit a " + call.kind, null));
    }

    /** On the loop: fails {@code call} with a timeout, if still in flight here; nothing else is failed. */
    void timeOut(Call call) {
        if (inFlight.remove(call.id) == call) {
            inFlightCount = inFlight.size();
            call.fail(new ReplicaException.Timeout(node, client.timeoutMs()));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        ready = false;
        client.ended(node, loop, this, retryMs);
        if (!inFlight.isEmpty()) {
            var calls = new ArrayList<>(inFlight.values());
            inFlight.clear();
            inFlightCount = 0;
            for (Call c : calls) {
                c.fail(WireClient.failed(node, "v2 connection closed with the call in flight"));
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("node-to-node v2 connection to {} failed", node, cause);
        var _ = ctx.close();
    }

    /** Closes the connection from any thread; its calls in flight fail. */
    void close() {
        ready = false;
        Channel ch = channel;
        if (ch != null) {
            var _ = ch.close();
        }
    }
}
