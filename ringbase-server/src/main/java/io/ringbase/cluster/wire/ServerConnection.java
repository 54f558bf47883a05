package io.ringbase.cluster.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.ringbase.cluster.paxos.PaxosAcceptor;
import io.ringbase.cluster.paxos.PaxosRefusedException;
import io.ringbase.cluster.rpc.ReplicaBatch;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted v2 connection: the server's side of the handshake (version, cluster name, membership,
 * the mutual proof of the cluster secret), then each call served through
 * {@link io.ringbase.cluster.rpc.ReplicaServer#serve}: on the event loop when it will not wait, else on
 * the HTTP server's workers (a write the engine cannot take at once, a read that would wait for the
 * disk), as the HTTP internal API runs it. Answers go out in completion order; those of one read turn
 * are flushed together. Used on its loop only, except answers handed back from workers.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ServerConnection.class);

    private enum State {
        HELLO,
        AUTH,
        READY,
        CLOSED
    }

    private final WireServer owner;
    private final Executor workers;
    /** Why this connection is refused before its hello is read (no client certificate on a TLS port). */
    private final @Nullable String refusal;

    private final byte[] nonce = Handshake.nonce();
    private State state = State.HELLO;
    private Handshake.@Nullable ClientHello hello;
    private int version;
    private boolean magicSent;

    ServerConnection(WireServer owner, Executor workers, @Nullable String refusal) {
        this.owner = owner;
        this.workers = workers;
        this.refusal = refusal;
    }

    /**
     * A connection refused before its hello (no client certificate on a TLS port) is answered at once: the
     * magic and a REFUSED frame, then closed. The WARN line was logged, rate-limited, where it was decided.
     * Any other gets its handshake deadline ({@link WireServer#HANDSHAKE_TIMEOUT_MS}).
     */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        String why = refusal;
        if (why != null) {
            state = State.CLOSED;
            sendMagic(ctx);
            var _ = ctx.writeAndFlush(Handshake.refused(ctx.alloc(), why))
                    .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
            return;
        }
        var _ = ctx.executor()
                .schedule(
                        () -> {
                            if (state == State.HELLO || state == State.AUTH) {
                                close(
                                        ctx,
                                        "did not complete the handshake within " + WireServer.HANDSHAKE_TIMEOUT_MS
                                                + " ms");
                            }
                        },
                        WireServer.HANDSHAKE_TIMEOUT_MS,
                        TimeUnit.MILLISECONDS);
    }

    /** A peer that went away mid-handshake is no stalled peer: its deadline must not log one. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE && state != State.CLOSED) {
            close(ctx, "sent nothing for " + WireServer.IDLE_TIMEOUT_MS + " ms");
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Closes a connection whose peer stalled or went silent (no REFUSED frame: it would not read it). */
    private void close(ChannelHandlerContext ctx, String why) {
        state = State.CLOSED;
        long held = owner.closedLog.tryLog();
        if (held >= 0) {
            log.warn(
                    "closed a node-to-node v2 connection from {}: it {}{}",
                    ctx.channel().remoteAddress(),
                    why,
                    held > 0 ? " (" + held + " more closed since the last such line)" : "");
        }
        var _ = ctx.close();
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
                case HELLO -> clientHello(ctx, frame.op(), body);
                case AUTH -> clientAuth(ctx, frame.op(), body);
                case READY -> call(ctx, frame.id(), frame.op(), body);
                default -> {} // closing
            }
        } catch (IllegalArgumentException e) {
            refuse(ctx, "an undecodable handshake: " + e.getMessage());
        } finally {
            body.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush(); // the answers served inline in this read turn, together
        if (!ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(false); // a peer that reads no answers gets no more served
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void clientHello(ChannelHandlerContext ctx, byte op, ByteBuf body) {
        if (op != WireFormat.OP_CLIENT_HELLO) {
            refuse(ctx, "opcode 0x" + Integer.toHexString(op & 0xFF) + " before its hello");
            return;
        }
        Handshake.ClientHello h = Handshake.clientHello(body);
        hello = h;
        version = Handshake.negotiate(h.minVersion(), h.maxVersion());
        if (version < 0) {
            refuse(
                    ctx,
                    "no common protocol version: it speaks " + h.minVersion() + ".." + h.maxVersion() + ", this node "
                            + WireFormat.MIN_VERSION + ".." + WireFormat.MAX_VERSION);
            return;
        }
        if (!h.cluster().equals(owner.clusterName)) {
            refuse(ctx, "cluster '" + h.cluster() + "', this node is of '" + owner.clusterName + "'");
            return;
        }
        String membership = owner.server.membershipRefusal(h.membership());
        if (membership != null) {
            refuse(ctx, membership);
            return;
        }
        byte[] proof = Handshake.serverProof(owner.signer, h.nonce(), nonce, version);
        sendMagic(ctx);
        var _ = ctx.writeAndFlush(
                Handshake.encode(ctx.alloc(), new Handshake.ServerHello(version, owner.clusterName, nonce, proof)));
        state = State.AUTH;
    }

    private void clientAuth(ChannelHandlerContext ctx, byte op, ByteBuf body) {
        Handshake.ClientHello h = java.util.Objects.requireNonNull(hello);
        if (op != WireFormat.OP_CLIENT_AUTH) {
            refuse(ctx, "opcode 0x" + Integer.toHexString(op & 0xFF) + " instead of its proof");
            return;
        }
        byte[] given = Handshake.proofOf(body);
        String bad = Handshake.proofRefusal(
                owner.signer, given, Handshake.clientProof(owner.signer, h.nonce(), nonce, version));
        if (bad != null) {
            refuse(ctx, bad);
            return;
        }
        state = State.READY;
        if (h.epoch() > 0) {
            owner.server.sawEpoch(h.epoch());
        }
        var _ = ctx.writeAndFlush(Handshake.ready(ctx.alloc()));
    }

    /** Refuses the handshake: one WARN line naming the peer and why, REFUSED, close. */
    private void refuse(ChannelHandlerContext ctx, String why) {
        Handshake.ClientHello h = hello;
        log.warn(
                "refused a node-to-node v2 connection from {}{}: {}",
                ctx.channel().remoteAddress(),
                h == null ? "" : " (node " + h.sender() + ")",
                why);
        state = State.CLOSED;
        sendMagic(ctx); // a refusal is a frame: the client reads it after the magic
        var _ = ctx.writeAndFlush(Handshake.refused(ctx.alloc(), why))
                .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
    }

    private void sendMagic(ChannelHandlerContext ctx) {
        if (!magicSent) {
            magicSent = true;
            var _ = ctx.write(Unpooled.wrappedBuffer(WireFormat.MAGIC));
        }
    }

    private void call(ChannelHandlerContext ctx, int id, byte op, ByteBuf body) {
        ReplicaBatch.Op call;
        try {
            call = switch (op) {
                case WireFormat.OP_READ -> new ReplicaBatch.Read(key(body));
                case WireFormat.OP_VERSION -> new ReplicaBatch.QueryVersion(key(body));
                case WireFormat.OP_WRITE -> new ReplicaBatch.Write(WireFormat.readEntry(body));
                case WireFormat.OP_PING -> {
                    ByteBuf pong = WireFormat.frame(ctx.alloc(), id, WireFormat.OP_PONG, 0);
                    String reason = owner.server.unwritableReason();
                    if (reason != null) {
                        pong.writeBytes(reason.getBytes(StandardCharsets.UTF_8));
                    }
                    var _ = ctx.write(WireFormat.seal(pong), ctx.voidPromise());
                    yield null;
                }
                case WireFormat.OP_PAXOS -> {
                    if (version < WireFormat.PAXOS_VERSION) {
                        answerError(ctx, id, WireFormat.ERR_UNKNOWN_OP, "PAXOS is not in protocol version " + version);
                    } else {
                        paxos(ctx, id, body);
                    }
                    yield null;
                }
                case WireFormat.OP_EPOCH -> {
                    if (body.readableBytes() == 8) {
                        owner.server.sawEpoch(body.readLongLE());
                    }
                    yield null;
                }
                default -> {
                    answerError(
                            ctx, id, WireFormat.ERR_UNKNOWN_OP, "unknown opcode 0x" + Integer.toHexString(op & 0xFF));
                    yield null;
                }
            };
        } catch (IllegalArgumentException e) {
            answerError(ctx, id, WireFormat.ERR_BAD_REQUEST, String.valueOf(e.getMessage()));
            return;
        }
        if (call == null) {
            return;
        }
        if (!(call instanceof ReplicaBatch.Write)) {
            String refusal = owner.server.readRefusal();
            if (refusal != null) {
                answerError(ctx, id, WireFormat.ERR_REFUSED, refusal);
                return;
            }
        }
        boolean inline = !(call instanceof ReplicaBatch.Write) || !owner.server.writeMayBlock();
        ReplicaBatch.Result result = inline ? owner.server.serve(call, false) : null;
        if (result != null) {
            var _ = ctx.write(encode(ctx.alloc(), id, result), ctx.voidPromise());
            return;
        }
        Channel ch = ctx.channel();
        ReplicaBatch.Op blocked = call;
        try {
            workers.execute(() -> {
                ReplicaBatch.Result r = owner.server.serve(blocked, true);
                ReplicaBatch.Result answer = r != null ? r : new ReplicaBatch.Failed("the replica could not serve it");
                ch.eventLoop().execute(() -> {
                    var _ = ch.writeAndFlush(encode(ch.alloc(), id, answer), ch.voidPromise());
                });
            });
        } catch (RejectedExecutionException e) {
            answerError(ctx, id, WireFormat.ERR_OVERLOADED, "the replica's worker queue is full");
        }
    }

    /** A Paxos message: the acceptor fsyncs its state, so it always runs on a worker. */
    private void paxos(ChannelHandlerContext ctx, int id, ByteBuf body) {
        String refusal = owner.server.paxosRefusal();
        if (refusal != null) {
            answerError(ctx, id, WireFormat.ERR_REFUSED, refusal);
            return;
        }
        PaxosAcceptor acceptor = Objects.requireNonNull(owner.server.paxos()); // set once, before any call
        byte[] message = new byte[body.readableBytes()];
        body.readBytes(message);
        Channel ch = ctx.channel();
        try {
            workers.execute(() -> {
                ByteBuf answer;
                try {
                    byte[] reply = acceptor.handle(message);
                    answer = WireFormat.frame(ch.alloc(), id, WireFormat.OP_PAXOS_REPLY, reply.length);
                    answer.writeBytes(reply);
                    answer = WireFormat.seal(answer);
                } catch (PaxosRefusedException e) {
                    answer = WireFormat.error(ch.alloc(), id, WireFormat.ERR_REFUSED, String.valueOf(e.getMessage()));
                } catch (IllegalArgumentException e) {
                    answer = WireFormat.error(
                            ch.alloc(), id, WireFormat.ERR_BAD_REQUEST, String.valueOf(e.getMessage()));
                } catch (IOException | RuntimeException e) {
                    log.error("a Paxos call failed on this replica", e);
                    answer = WireFormat.error(ch.alloc(), id, WireFormat.ERR_FAILED, String.valueOf(e.getMessage()));
                }
                ByteBuf out = answer;
                ch.eventLoop().execute(() -> {
                    var _ = ch.writeAndFlush(out, ch.voidPromise());
                });
            });
        } catch (RejectedExecutionException e) {
            answerError(ctx, id, WireFormat.ERR_OVERLOADED, "the replica's worker queue is full");
        }
    }

    private static byte[] key(ByteBuf body) {
        if (body.readableBytes() > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "key of " + body.readableBytes() + " bytes exceeds " + Entry.MAX_KEY_BYTES);
        }
        byte[] key = new byte[body.readableBytes()];
        body.readBytes(key);
        return key;
    }

    private static ByteBuf encode(ByteBufAllocator alloc, int id, ReplicaBatch.Result result) {
        return switch (result) {
            case ReplicaBatch.Written w -> {
                ByteBuf out = WireFormat.frame(alloc, id, WireFormat.OP_VERSION_IS, 8);
                out.writeLongLE(w.version());
                yield WireFormat.seal(out);
            }
            case ReplicaBatch.Found f
            when f.entry() == null -> WireFormat.seal(WireFormat.frame(alloc, id, WireFormat.OP_ABSENT, 0));
            case ReplicaBatch.Found f -> {
                Entry e = java.util.Objects.requireNonNull(f.entry());
                ByteBuf out = WireFormat.frame(alloc, id, WireFormat.OP_FOUND, (int) WireFormat.entrySize(e));
                WireFormat.writeEntry(out, e);
                yield WireFormat.seal(out);
            }
            case ReplicaBatch.Failed f -> WireFormat.error(alloc, id, WireFormat.ERR_FAILED, f.reason());
            case ReplicaBatch.TooLarge t -> WireFormat.error(alloc, id, WireFormat.ERR_FAILED, "too large");
        };
    }

    private static void answerError(ChannelHandlerContext ctx, int id, int code, String reason) {
        var _ = ctx.write(WireFormat.error(ctx.alloc(), id, code, reason), ctx.voidPromise());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("node-to-node v2 connection from {} failed", ctx.channel().remoteAddress(), cause);
        var _ = ctx.close();
    }
}
