package io.ringbase.cluster.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a v2 connection's byte stream into checked {@link Frame}s (docs/internal-protocol-v2.md,
 * "Frame"), after the peer's {@link WireFormat#MAGIC}. A length over {@link WireFormat#MAX_FRAME_BYTES}
 * or under the header, a CRC32C mismatch, a set flag bit or a wrong magic closes the connection with one
 * WARN line naming the peer and what was wrong; nothing is allocated for an oversized frame's body.
 * One instance per connection.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private static final Logger log = LoggerFactory.getLogger(FrameDecoder.class);

    /** A checked frame; the receiver releases {@link #body}. */
    record Frame(int id, byte op, ByteBuf body) {}

    private enum State {
        MAGIC,
        FRAMES,
        BROKEN
    }

    private final String side;
    private State state;

    /**
     * @param side        how this end is named in log lines ("client", "server")
     * @param expectMagic whether the stream starts with the peer's magic (false when a sniffer consumed it)
     */
    FrameDecoder(String side, boolean expectMagic) {
        this.side = side;
        this.state = expectMagic ? State.MAGIC : State.FRAMES;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.MAGIC) {
            if (in.readableBytes() < WireFormat.MAGIC.length) {
                if (!prefixOfMagic(in)) {
                    broken(ctx, in, "does not speak v2: it sent " + preview(in));
                }
                return;
            }
            if (!prefixOfMagic(in)) {
                broken(ctx, in, "does not speak v2: it sent " + preview(in));
                return;
            }
            in.skipBytes(WireFormat.MAGIC.length);
            state = State.FRAMES;
        }
        while (state == State.FRAMES && in.readableBytes() >= 4) {
            int start = in.readerIndex();
            long length = in.getUnsignedIntLE(start);
            if (length > WireFormat.MAX_FRAME_BYTES) {
                broken(ctx, in, "sent a frame of " + length + " bytes, over the maximum " + WireFormat.MAX_FRAME_BYTES);
                return;
            }
            if (length < WireFormat.LENGTH_OVERHEAD) {
                broken(
                        ctx,
                        in,
                        "sent a frame of " + length + " bytes, under the header's " + WireFormat.LENGTH_OVERHEAD);
                return;
            }
            if (in.readableBytes() < 4 + length) {
                return; // the rest has not arrived
            }
            int stored = in.getIntLE(start + 4);
            int actual = WireFormat.crc(in, start + 8, (int) length - 4);
            if (stored != actual) {
                broken(
                        ctx,
                        in,
                        "sent a frame whose CRC32C 0x" + Integer.toHexString(stored) + " does not match its bytes (0x"
                                + Integer.toHexString(actual) + ")");
                return;
            }
            int id = in.getIntLE(start + 8);
            byte op = in.getByte(start + 12);
            int flags = in.getUnsignedByte(start + 13);
            if (flags != 0) {
                broken(ctx, in, "sent a frame with unknown flags 0x" + Integer.toHexString(flags));
                return;
            }
            int bodyLength = (int) length - WireFormat.LENGTH_OVERHEAD;
            ByteBuf body = in.retainedSlice(start + WireFormat.FRAME_HEADER_SIZE, bodyLength);
            in.skipBytes(4 + (int) length);
            out.add(new Frame(id, op, body));
        }
        if (state == State.BROKEN) {
            in.skipBytes(in.readableBytes());
        }
    }

    private static boolean prefixOfMagic(ByteBuf in) {
        int n = Math.min(in.readableBytes(), WireFormat.MAGIC.length);
        for (int i = 0; i < n; i++) {
            if (in.getByte(in.readerIndex() + i) != WireFormat.MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private static String preview(ByteBuf in) {
        int n = Math.min(in.readableBytes(), 16);
        return "0x" + ByteBufUtil.hexDump(in, in.readerIndex(), n);
    }

    private void broken(ChannelHandlerContext ctx, ByteBuf in, String what) {
        state = State.BROKEN;
        in.skipBytes(in.readableBytes());
        log.warn(
                "closing node-to-node v2 connection ({} side) with {}: the peer {}",
                side,
                ctx.channel().remoteAddress(),
                what);
        ctx.fireUserEventTriggered(new Broken(what));
        var _ = ctx.close();
    }

    /** Fired down the pipeline before the decoder closes a connection, with the reason. */
    record Broken(String reason) {}
}
