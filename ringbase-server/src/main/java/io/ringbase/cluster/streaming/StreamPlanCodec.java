package io.ringbase.cluster.streaming;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The wire form of a {@link StreamPlan}, the body of {@code POST /internal/v0/stream} (docs/http-api.md,
 * "Stream plan encoding"): magic, version, the plan's fields and both rings with their seed names, then a
 * CRC32C of every byte before it. Little-endian. Stateless and thread-safe.
 */
public final class StreamPlanCodec {

    /** {@code "RBSP"}. Do not change. */
    static final int MAGIC = 0x50534252; // "RBSP" read as a little-endian u32
    /** The only version so far. Do not change its meaning. */
    static final byte VERSION = 1;
    /** Bit 0 of the flags byte: {@link StreamPlan#anyOldReplica()}. */
    static final int ANY_OLD_REPLICA = 0x01;
    /** Longest host or seed name, bytes of UTF-8. */
    static final int MAX_NAME_BYTES = 1024;

    static final int HEADER_SIZE = 4 + 1 + 8 + 1 + 1 + 1 + 1; // magic, version, epoch, rf, flags, source, target
    static final int CRC_SIZE = 4;

    private StreamPlanCodec() {}

    /** The plan's encoding, about 40 bytes per node of both rings. */
    public static byte[] encode(StreamPlan plan) {
        List<byte[]> strings = new ArrayList<>();
        int size = HEADER_SIZE + ringSize(plan.before(), strings) + ringSize(plan.after(), strings) + CRC_SIZE;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC)
                .put(VERSION)
                .putLong(plan.epoch())
                .put((byte) plan.rf())
                .put((byte) (plan.anyOldReplica() ? ANY_OLD_REPLICA : 0))
                .put((byte) plan.source().index())
                .put((byte) plan.target().index());
        int s = 0;
        for (Ring ring : List.of(plan.before(), plan.after())) {
            b.put((byte) ring.size());
            for (NodeId n : ring.nodes()) {
                byte[] host = strings.get(s++);
                byte[] seed = strings.get(s++);
                b.put((byte) n.index())
                        .putShort((short) host.length)
                        .put(host)
                        .putShort((short) n.port())
                        .putShort((short) seed.length)
                        .put(seed);
            }
        }
        b.putInt(crc(b.array(), b.position()));
        return b.array();
    }

    /**
     * Decodes an {@link #encode}d plan.
     *
     * @throws IllegalArgumentException naming what is wrong: a short or long body, a checksum mismatch, an
     *                                  unknown magic, version or flag, or a plan {@link StreamPlan} refuses
     */
    public static StreamPlan decode(byte[] bytes) {
        if (bytes.length < HEADER_SIZE + CRC_SIZE) {
            throw new IllegalArgumentException("stream plan of " + bytes.length + " bytes is too short");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int stored = b.getInt(bytes.length - CRC_SIZE);
        int actual = crc(bytes, bytes.length - CRC_SIZE);
        if (stored != actual) {
            throw new IllegalArgumentException("stream plan checksum mismatch: stored " + Integer.toHexString(stored)
                    + ", computed " + Integer.toHexString(actual));
        }
        b.limit(bytes.length - CRC_SIZE);
        try {
            if (b.getInt() != MAGIC) {
                throw new IllegalArgumentException("not a stream plan (bad magic)");
            }
            byte version = b.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown stream plan version " + version);
            }
            long epoch = b.getLong();
            int rf = Byte.toUnsignedInt(b.get());
            int flags = Byte.toUnsignedInt(b.get());
            if ((flags & ~ANY_OLD_REPLICA) != 0) {
                throw new IllegalArgumentException("unknown stream plan flags 0x" + Integer.toHexString(flags));
            }
            int source = Byte.toUnsignedInt(b.get());
            int target = Byte.toUnsignedInt(b.get());
            Ring before = ring(b);
            Ring after = ring(b);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException("stream plan has " + b.remaining() + " bytes after its rings");
            }
            return new StreamPlan(
                    epoch,
                    rf,
                    before,
                    after,
                    node(before, source, "source"),
                    node(after, target, "target"),
                    (flags & ANY_OLD_REPLICA) != 0);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("stream plan is truncated", e);
        }
    }

    private static int ringSize(Ring ring, List<byte[]> strings) {
        if (ring.size() > HybridLogicalClock.MAX_NODES) {
            throw new IllegalArgumentException("a ring of " + ring.size() + " nodes does not fit a stream plan");
        }
        int size = 1; // count
        for (int i = 0; i < ring.size(); i++) {
            byte[] host = name(ring.nodes().get(i).host());
            byte[] seed = name(ring.seedNames().get(i));
            strings.add(host);
            strings.add(seed);
            size += 1 + 2 + host.length + 2 + 2 + seed.length; // index, hostLength, host, port, seedLength, seed
        }
        return size;
    }

    private static byte[] name(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("name of " + bytes.length + " bytes exceeds " + MAX_NAME_BYTES);
        }
        return bytes;
    }

    private static Ring ring(ByteBuffer b) {
        int count = Byte.toUnsignedInt(b.get());
        if (count < 1 || count > HybridLogicalClock.MAX_NODES) {
            throw new IllegalArgumentException(
                    "ring of " + count + " nodes, must be 1.." + HybridLogicalClock.MAX_NODES);
        }
        List<NodeId> nodes = new ArrayList<>(count);
        List<String> seeds = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int index = Byte.toUnsignedInt(b.get());
            String host = string(b);
            int port = Short.toUnsignedInt(b.getShort());
            seeds.add(string(b));
            nodes.add(new NodeId(index, host, port)); // checks the port
        }
        return new Ring(nodes, seeds); // checks the indexes
    }

    private static String string(ByteBuffer b) {
        int length = Short.toUnsignedInt(b.getShort());
        if (length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("name of " + length + " bytes exceeds " + MAX_NAME_BYTES);
        }
        byte[] bytes = new byte[length];
        b.get(bytes);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("name is not UTF-8", e);
        }
    }

    private static NodeId node(Ring ring, int index, String role) {
        for (NodeId n : ring.nodes()) {
            if (n.index() == index) {
                return n;
            }
        }
        throw new IllegalArgumentException(role + " index " + index + " is not in its ring");
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }
}
