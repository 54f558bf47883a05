package io.ringbase.cluster.metadata;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes the records of docs/metadata-format.md: transformations (the Raft log payload), the
 * metadata snapshot, the query and the reply. Every record has the same frame: {@code magic version kind
 * length body crc}, little-endian, CRC32C over everything before the crc. Decoders check the reader rules
 * of section 6 in order and throw {@link MetadataFormatException} naming what failed.
 */
public final class MetadataCodec {

    /** Magic of a transformation record, "RBMT" in the file. */
    static final int TRANSFORMATION_MAGIC = 0x544D4252;
    /** Magic of a metadata snapshot record, "RBMS". */
    static final int SNAPSHOT_MAGIC = 0x534D4252;
    /** Magic of a query record, "RBMQ". */
    static final int QUERY_MAGIC = 0x514D4252;
    /** Magic of a reply record, "RBMR". */
    static final int REPLY_MAGIC = 0x524D4252;

    /** Version of transformation and query records. */
    static final int VERSION = 1;
    /** Version of snapshot and reply records: the metadata body ends with the voters. Version 1 is read too. */
    static final int METADATA_VERSION = 2;

    static final int HEADER_SIZE = 4 + 1 + 1 + 4; // magic, version, kind, length
    static final int FRAME_SIZE = HEADER_SIZE + 4; // + crc
    /** Largest body of any record, bytes. */
    static final int MAX_BODY = 1 << 20;
    /** Longest rejection reason, UTF-8 bytes. */
    static final int MAX_REASON_BYTES = 65_535;

    static final int SNAPSHOT_FULL = 1;
    static final int QUERY_CURRENT = 1;
    static final int REPLY_APPLIED = 1;
    static final int REPLY_REJECTED = 2;

    private MetadataCodec() {}

    /** A transformation record (section 3). */
    public static byte[] encode(Transformation t) {
        Body body = new Body();
        switch (t) {
            case Transformation.Initialize i -> {
                body.uuid(i.clusterId());
                body.i32(i.replicationFactor());
                body.i32(i.founders().size());
                for (Transformation.Founder f : i.founders()) {
                    body.string(f.url(), Member.MAX_ADDRESS_BYTES);
                    body.string(f.metadataAddress(), Member.MAX_ADDRESS_BYTES);
                }
            }
            case Transformation.StartJoin j -> {
                body.string(j.url(), Member.MAX_ADDRESS_BYTES);
                body.string(j.metadataAddress(), Member.MAX_ADDRESS_BYTES);
            }
            case Transformation.FinishJoin f -> body.i32(f.nodeId());
            case Transformation.StartDecommission d -> body.i32(d.nodeId());
            case Transformation.FinishDecommission d -> body.i32(d.nodeId());
            case Transformation.RemoveNode r -> body.i32(r.nodeId());
            case Transformation.StartReplace r -> {
                body.i32(r.replacedId());
                body.string(r.url(), Member.MAX_ADDRESS_BYTES);
                body.string(r.metadataAddress(), Member.MAX_ADDRESS_BYTES);
            }
            case Transformation.FinishReplace f -> body.i32(f.nodeId());
            case Transformation.SetReplicationFactor s -> body.i32(s.replicationFactor());
        }
        return frame(TRANSFORMATION_MAGIC, VERSION, t.kind(), body);
    }

    /**
     * Decodes a transformation record.
     *
     * @throws MetadataFormatException if the bytes break a reader rule (section 6)
     */
    public static Transformation decodeTransformation(byte[] record) throws MetadataFormatException {
        Frame frame = unframe(record, TRANSFORMATION_MAGIC, VERSION, "transformation");
        ByteBuffer in = frame.body;
        try {
            Transformation t = switch (frame.kind) {
                case 1 -> {
                    UUID clusterId = uuid(in);
                    int rf = in.getInt();
                    int count = in.getInt();
                    if (count < 0 || count > Transformation.Initialize.MAX_FOUNDERS) {
                        throw new MetadataFormatException("founder count " + count + " out of range");
                    }
                    List<Transformation.Founder> founders = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        founders.add(new Transformation.Founder(
                                string(in, Member.MAX_ADDRESS_BYTES), string(in, Member.MAX_ADDRESS_BYTES)));
                    }
                    yield new Transformation.Initialize(clusterId, rf, founders);
                }
                case 2 ->
                    new Transformation.StartJoin(
                            string(in, Member.MAX_ADDRESS_BYTES), string(in, Member.MAX_ADDRESS_BYTES));
                case 3 -> new Transformation.FinishJoin(in.getInt());
                case 4 -> new Transformation.StartDecommission(in.getInt());
                case 5 -> new Transformation.FinishDecommission(in.getInt());
                case 6 -> new Transformation.RemoveNode(in.getInt());
                case 7 ->
                    new Transformation.StartReplace(
                            in.getInt(), string(in, Member.MAX_ADDRESS_BYTES), string(in, Member.MAX_ADDRESS_BYTES));
                case 8 -> new Transformation.FinishReplace(in.getInt());
                case 9 -> new Transformation.SetReplicationFactor(in.getInt());
                default -> throw new MetadataFormatException("unknown transformation kind " + frame.kind);
            };
            requireEnd(in, "transformation");
            return t;
        } catch (BufferUnderflowException e) {
            throw new MetadataFormatException("transformation body ends early (kind " + frame.kind + ")", e);
        } catch (IllegalArgumentException e) {
            throw new MetadataFormatException("invalid transformation (kind " + frame.kind + "): " + e.getMessage(), e);
        }
    }

    /** A metadata snapshot record (section 4). */
    public static byte[] encode(ClusterMetadata metadata) {
        Body body = new Body();
        metadataBody(body, metadata);
        return frame(SNAPSHOT_MAGIC, METADATA_VERSION, SNAPSHOT_FULL, body);
    }

    /**
     * Decodes a metadata snapshot record.
     *
     * @throws MetadataFormatException if the bytes break a reader rule (section 6)
     */
    public static ClusterMetadata decodeMetadata(byte[] record) throws MetadataFormatException {
        Frame frame = unframe(record, SNAPSHOT_MAGIC, METADATA_VERSION, "metadata snapshot");
        if (frame.kind != SNAPSHOT_FULL) {
            throw new MetadataFormatException("unknown metadata snapshot kind " + frame.kind);
        }
        ClusterMetadata metadata = metadataBody(frame.body, frame.version);
        requireEnd(frame.body, "metadata snapshot");
        return metadata;
    }

    /** The query for the current metadata (section 5). */
    static byte[] encodeCurrentQuery() {
        return frame(QUERY_MAGIC, VERSION, QUERY_CURRENT, new Body());
    }

    /**
     * Checks a query record and returns its kind.
     *
     * @throws MetadataFormatException if the bytes break a reader rule or the kind is unknown
     */
    static int decodeQuery(byte[] record) throws MetadataFormatException {
        Frame frame = unframe(record, QUERY_MAGIC, VERSION, "query");
        if (frame.kind != QUERY_CURRENT) {
            throw new MetadataFormatException("unknown query kind " + frame.kind);
        }
        requireEnd(frame.body, "query");
        return frame.kind;
    }

    /** The reply to a transformation (section 5). */
    static byte[] encode(Outcome outcome) {
        Body body = new Body();
        return switch (outcome) {
            case Outcome.Applied a -> {
                metadataBody(body, a.metadata());
                yield frame(REPLY_MAGIC, METADATA_VERSION, REPLY_APPLIED, body);
            }
            case Outcome.Rejected r -> {
                body.i64(r.epoch());
                body.string(truncate(r.reason()), MAX_REASON_BYTES);
                yield frame(REPLY_MAGIC, METADATA_VERSION, REPLY_REJECTED, body);
            }
        };
    }

    /**
     * Decodes a reply record.
     *
     * @throws MetadataFormatException if the bytes break a reader rule (section 6)
     */
    static Outcome decodeOutcome(byte[] record) throws MetadataFormatException {
        Frame frame = unframe(record, REPLY_MAGIC, METADATA_VERSION, "reply");
        ByteBuffer in = frame.body;
        try {
            Outcome outcome = switch (frame.kind) {
                case REPLY_APPLIED -> new Outcome.Applied(metadataBody(in, frame.version));
                case REPLY_REJECTED -> new Outcome.Rejected(in.getLong(), string(in, MAX_REASON_BYTES));
                default -> throw new MetadataFormatException("unknown reply kind " + frame.kind);
            };
            requireEnd(in, "reply");
            return outcome;
        } catch (BufferUnderflowException e) {
            throw new MetadataFormatException("reply body ends early", e);
        }
    }

    private static void metadataBody(Body body, ClusterMetadata metadata) {
        body.uuid(metadata.clusterId());
        body.i64(metadata.epoch());
        body.i32(metadata.replicationFactor());
        body.i32(metadata.nextNodeId());
        body.i32(metadata.members().size());
        for (Member m : metadata.members().values()) {
            body.i32(m.id());
            body.u8(m.state().code());
            body.i32(m.token());
            body.i32(m.replaces());
            body.string(m.url(), Member.MAX_ADDRESS_BYTES);
            body.string(m.metadataAddress(), Member.MAX_ADDRESS_BYTES);
        }
        body.i32(metadata.voters().size());
        for (int voter : metadata.voters()) {
            body.i32(voter);
        }
    }

    /** The metadata body of section 4 in {@code version} (1: without the voters). */
    private static ClusterMetadata metadataBody(ByteBuffer in, int version) throws MetadataFormatException {
        try {
            UUID clusterId = uuid(in);
            long epoch = in.getLong();
            int rf = in.getInt();
            int nextNodeId = in.getInt();
            int count = in.getInt();
            if (count < 0 || count > in.remaining()) {
                throw new MetadataFormatException("member count " + count + " out of range");
            }
            SortedMap<Integer, Member> members = new TreeMap<>();
            int previous = 0;
            for (int i = 0; i < count; i++) {
                int id = in.getInt();
                int state = Byte.toUnsignedInt(in.get());
                int token = in.getInt();
                int replaces = in.getInt();
                String url = string(in, Member.MAX_ADDRESS_BYTES);
                String address = string(in, Member.MAX_ADDRESS_BYTES);
                if (id <= previous) {
                    throw new MetadataFormatException("member ids not ascending: " + id + " after " + previous);
                }
                previous = id;
                members.put(id, new Member(id, url, address, MemberState.ofCode(state), token, replaces));
            }
            SortedSet<Integer> voters = new TreeSet<>();
            if (version >= 2) {
                int voterCount = in.getInt();
                if (voterCount < 0 || voterCount > count) {
                    throw new MetadataFormatException(
                            "voter count " + voterCount + " out of range (" + count + " members)");
                }
                int previousVoter = 0;
                for (int i = 0; i < voterCount; i++) {
                    int voter = in.getInt();
                    if (voter <= previousVoter) {
                        throw new MetadataFormatException(
                                "voter ids not ascending: " + voter + " after " + previousVoter);
                    }
                    previousVoter = voter;
                    voters.add(voter);
                }
            }
            return new ClusterMetadata(clusterId, epoch, rf, nextNodeId, members, voters);
        } catch (BufferUnderflowException e) {
            throw new MetadataFormatException("metadata body ends early", e);
        } catch (IllegalArgumentException e) {
            throw new MetadataFormatException("invalid metadata: " + e.getMessage(), e);
        }
    }

    private static String truncate(String reason) {
        byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES) {
            return reason;
        }
        // cut on a character boundary: drop the (at most 3) bytes of a split character
        int end = MAX_REASON_BYTES;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    private static byte[] frame(int magic, int version, int kind, Body body) {
        byte[] content = body.toByteArray();
        ByteBuffer out = ByteBuffer.allocate(FRAME_SIZE + content.length).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(magic)
                .put((byte) version)
                .put((byte) kind)
                .putInt(content.length)
                .put(content);
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        return out.array();
    }

    private record Frame(int version, int kind, ByteBuffer body) {}

    /** Checks the frame of a record whose versions 1 to {@code newestVersion} this server reads. */
    private static Frame unframe(byte[] record, int magic, int newestVersion, String what)
            throws MetadataFormatException {
        if (record.length < FRAME_SIZE) {
            throw new MetadataFormatException(
                    what + " record truncated: " + record.length + " bytes, the frame alone is " + FRAME_SIZE);
        }
        ByteBuffer in = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        int actualMagic = in.getInt();
        if (actualMagic != magic) {
            throw new MetadataFormatException("not a " + what + " record: magic 0x" + Integer.toHexString(actualMagic)
                    + ", expected 0x" + Integer.toHexString(magic));
        }
        int version = Byte.toUnsignedInt(in.get());
        if (version < 1 || version > newestVersion) {
            throw new MetadataFormatException(
                    what + " record has unknown version " + version + " (this server reads 1.." + newestVersion + ")");
        }
        int kind = Byte.toUnsignedInt(in.get());
        long length = Integer.toUnsignedLong(in.getInt());
        if (length > MAX_BODY || length != record.length - FRAME_SIZE) {
            throw new MetadataFormatException(
                    what + " record length " + length + " does not match its " + record.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(record, 0, record.length - 4);
        int stored = ByteBuffer.wrap(record, record.length - 4, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt();
        if (stored != (int) crc.getValue()) {
            throw new MetadataFormatException(what + " record checksum mismatch: stored 0x"
                    + Integer.toHexString(stored) + ", computed 0x" + Long.toHexString(crc.getValue()));
        }
        ByteBuffer body =
                ByteBuffer.wrap(record, HEADER_SIZE, (int) length).slice().order(ByteOrder.LITTLE_ENDIAN);
        return new Frame(version, kind, body);
    }

    private static void requireEnd(ByteBuffer in, String what) throws MetadataFormatException {
        if (in.hasRemaining()) {
            throw new MetadataFormatException(what + " body has " + in.remaining() + " bytes left over");
        }
    }

    private static UUID uuid(ByteBuffer in) {
        long msb = in.getLong();
        long lsb = in.getLong();
        return new UUID(msb, lsb);
    }

    private static String string(ByteBuffer in, int maxBytes) throws MetadataFormatException {
        int length = Short.toUnsignedInt(in.getShort());
        if (length > maxBytes) {
            throw new MetadataFormatException("string of " + length + " bytes, at most " + maxBytes);
        }
        if (length > in.remaining()) {
            throw new MetadataFormatException(
                    "string of " + length + " bytes with only " + in.remaining() + " bytes left in the body");
        }
        ByteBuffer bytes = in.slice(in.position(), length);
        in.position(in.position() + length);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes)
                    .toString();
        } catch (CharacterCodingException e) {
            throw new MetadataFormatException("string is not valid UTF-8", e);
        }
    }

    /** A growing little-endian body. */
    private static final class Body {
        private ByteBuffer buffer = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);

        private void ensure(int bytes) {
            if (buffer.remaining() < bytes) {
                int needed = buffer.position() + bytes;
                if (needed > MAX_BODY) {
                    throw new IllegalArgumentException("record body over " + MAX_BODY + " bytes");
                }
                int capacity = Math.min(MAX_BODY, Math.max(buffer.capacity() * 2, needed));
                ByteBuffer grown = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
                buffer.flip();
                grown.put(buffer);
                buffer = grown;
            }
        }

        void u8(int value) {
            ensure(1);
            buffer.put((byte) value);
        }

        void i32(int value) {
            ensure(4);
            buffer.putInt(value);
        }

        void i64(long value) {
            ensure(8);
            buffer.putLong(value);
        }

        void uuid(UUID value) {
            i64(value.getMostSignificantBits());
            i64(value.getLeastSignificantBits());
        }

        void string(String value, int maxBytes) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > maxBytes) {
                throw new IllegalArgumentException("string of " + bytes.length + " bytes, at most " + maxBytes);
            }
            ensure(2 + bytes.length);
            buffer.putShort((short) bytes.length);
            buffer.put(bytes);
        }

        byte[] toByteArray() {
            byte[] out = new byte[buffer.position()];
            buffer.get(0, out);
            return out;
        }
    }
}
