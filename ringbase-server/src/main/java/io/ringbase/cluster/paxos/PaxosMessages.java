package io.ringbase.cluster.paxos;

import io.ringbase.storage.Entry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The messages of a Paxos round and their encoding, the body of a {@code PAXOS} call of the node-to-node
 * protocol (op {@code 0x06} of protocol v2, or {@code POST /internal/v0/paxos}). Documented byte by byte in
 * docs/internal-protocol-v2.md, "Paxos". Little-endian; every message starts with its format version
 * (persisted) and its type (persisted).
 *
 * <p>Format 2 ({@link #FORMAT}) adds the proposer's placement epoch to every request, after the type, and
 * the STALE reply. A request of epoch 0 (a static cluster, which has no epochs) is sent in format 1, byte
 * for byte as before, so that static clusters mixing builds keep working; replies other than STALE keep
 * format 1, which every build reads.
 *
 * <pre>
 * request  := format u8 (1 or 2), type u8, epoch i64 (format 2 only; format 1: epoch 0), body
 * PREPARE  (0x01) := ballot i64, keyLength u32, key
 * PROPOSE  (0x02) := ballot i64, entry
 * COMMIT   (0x03) := ballot i64, entry
 * reply    := format u8 (1; 2 for STALE), type u8, body
 * PROMISE  (0x81) := ok u8, promised i64, accepted i64, committed i64, proposal optEntry, current optEntry,
 *                    recentCount u8, recent i64 x recentCount
 * ACCEPTED (0x82) := ok u8, promised i64
 * COMMITTED(0x83) := (empty)
 * STALE    (0x84) := epoch i64 (format 2 only)
 * optEntry := present u8 (0 or 1), entry if present
 * entry    := flags u8 (bit 0: tombstone, bit 2: typed), version i64, expiresAt i64, keyLength u32, valueLength u32, key, value
 * </pre>
 */
public final class PaxosMessages {

    /** The newest format version: requests with their epoch, and STALE (persisted). */
    public static final int FORMAT = 2;

    /** The format of requests of epoch 0 and of every reply but STALE (persisted). */
    static final int FORMAT_1 = 1;

    static final byte PREPARE = 0x01;
    static final byte PROPOSE = 0x02;
    static final byte COMMIT = 0x03;
    static final byte PROMISE = (byte) 0x81;
    static final byte ACCEPTED = (byte) 0x82;
    static final byte COMMITTED = (byte) 0x83;
    static final byte STALE = (byte) 0x84;

    /** Bytes of an entry's fixed part: flags, version, expiresAt, keyLength, valueLength. */
    static final int ENTRY_HEADER = 1 + 8 + 8 + 4 + 4;

    private PaxosMessages() {}

    /** A message a proposer sends. */
    public sealed interface Request {
        byte[] key();

        /**
         * The metadata epoch of the placement the proposer chose its participants by; 0 in a static cluster.
         * An acceptor at a newer epoch answers {@link Stale} (design.md, "Compare-and-set").
         */
        long epoch();
    }

    /** Phase 1a: promise no ballot below {@code ballot}, and say what you accepted and hold. */
    public record Prepare(byte[] key, long ballot, long epoch) implements Request {
        /** @throws IllegalArgumentException if {@code epoch} is negative */
        public Prepare {
            checkEpoch(epoch);
        }

        /** A prepare of a static cluster (epoch 0). */
        public Prepare(byte[] key, long ballot) {
            this(key, ballot, 0);
        }
    }

    /** Phase 2a: accept {@code proposal} under {@code ballot}. */
    public record Propose(long ballot, Entry proposal, long epoch) implements Request {
        /** @throws IllegalArgumentException if {@code epoch} is negative */
        public Propose {
            checkEpoch(epoch);
        }

        /** A proposal of a static cluster (epoch 0). */
        public Propose(long ballot, Entry proposal) {
            this(ballot, proposal, 0);
        }

        @Override
        public byte[] key() {
            return proposal.key();
        }
    }

    /** Learn: {@code entry} was chosen under {@code ballot}; apply it. */
    public record Commit(long ballot, Entry entry, long epoch) implements Request {
        /** @throws IllegalArgumentException if {@code epoch} is negative */
        public Commit {
            checkEpoch(epoch);
        }

        /** A commit of a static cluster (epoch 0). */
        public Commit(long ballot, Entry entry) {
            this(ballot, entry, 0);
        }

        @Override
        public byte[] key() {
            return entry.key();
        }
    }

    private static void checkEpoch(long epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
    }

    /** An acceptor's answer. */
    public sealed interface Reply {}

    /**
     * Phase 1b. {@code ok}: the ballot was promised; else {@code promised} is the higher one that was.
     * {@code accepted}/{@code proposal}: the highest ballot accepted and its value (none: 0 and null);
     * {@code committed}: the highest ballot committed (0: none); {@code current}: the newest entry the
     * replica's engine holds for the key (tombstones and expired entries included), the read of the round;
     * {@code recent}: the versions of the latest committed entries, oldest first (at most
     * {@link PaxosState#RECENT}).
     */
    public record Promise(
            boolean ok,
            long promised,
            long accepted,
            @Nullable Entry proposal,
            long committed,
            @Nullable Entry current,
            long[] recent)
            implements Reply {}

    /** Phase 2b. {@code ok}: accepted; else {@code promised} is the higher ballot promised. */
    public record Accepted(boolean ok, long promised) implements Reply {}

    /** The commit was applied. */
    public record Committed() implements Reply {}

    /**
     * Refused, nothing done: this acceptor is at metadata epoch {@code epoch}, newer than the request's, so
     * the request's participants may be the wrong ones (design.md, "Compare-and-set"). The proposer catches
     * up and starts the round over with the newer placement.
     */
    public record Stale(long epoch) implements Reply {}

    /** The encoding of {@code request}. */
    public static byte[] encode(Request request) {
        return switch (request) {
            case Prepare p -> {
                ByteBuffer b = ByteBuffer.allocate(headSize(p.epoch()) + 8 + 4 + p.key().length);
                putHead(b, PREPARE, p.epoch());
                b.putLong(p.ballot()).putInt(p.key().length).put(p.key());
                yield b.array();
            }
            case Propose p -> ballotAndEntry(PROPOSE, p.epoch(), p.ballot(), p.proposal());
            case Commit c -> ballotAndEntry(COMMIT, c.epoch(), c.ballot(), c.entry());
        };
    }

    /** The encoding of {@code reply}. */
    public static byte[] encode(Reply reply) {
        return switch (reply) {
            case Promise p -> {
                ByteBuffer b = ByteBuffer.allocate(
                        2 + 1 + 3 * 8 + optSize(p.proposal()) + optSize(p.current()) + 1 + 8 * p.recent().length);
                b.order(ByteOrder.LITTLE_ENDIAN);
                b.put((byte) FORMAT_1).put(PROMISE).put((byte) (p.ok() ? 1 : 0));
                b.putLong(p.promised()).putLong(p.accepted()).putLong(p.committed());
                putOpt(b, p.proposal());
                putOpt(b, p.current());
                b.put((byte) p.recent().length);
                for (long v : p.recent()) {
                    b.putLong(v);
                }
                yield b.array();
            }
            case Accepted a -> {
                ByteBuffer b = ByteBuffer.allocate(2 + 1 + 8);
                b.order(ByteOrder.LITTLE_ENDIAN);
                b.put((byte) FORMAT_1)
                        .put(ACCEPTED)
                        .put((byte) (a.ok() ? 1 : 0))
                        .putLong(a.promised());
                yield b.array();
            }
            case Committed c -> new byte[] {(byte) FORMAT_1, COMMITTED};
            case Stale s -> {
                ByteBuffer b = ByteBuffer.allocate(2 + 8);
                b.order(ByteOrder.LITTLE_ENDIAN);
                b.put((byte) FORMAT).put(STALE).putLong(s.epoch());
                yield b.array();
            }
        };
    }

    /**
     * Decodes a request.
     *
     * @throws IllegalArgumentException if {@code bytes} is not one well-formed request of format 1 or 2
     */
    public static Request decodeRequest(byte[] bytes) {
        try {
            return request(bytes);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a Paxos request cut short at " + bytes.length + " bytes", e);
        }
    }

    private static Request request(byte[] bytes) {
        ByteBuffer b = start(bytes);
        int format = bytes[0] & 0xFF;
        byte type = b.get();
        long epoch = format == FORMAT_1 ? 0 : b.getLong();
        if (epoch < 0 || (format != FORMAT_1 && epoch == 0)) {
            throw new IllegalArgumentException("a Paxos request of format " + format + " with epoch " + epoch);
        }
        Request r = switch (type) {
            case PREPARE -> {
                long ballot = b.getLong();
                yield new Prepare(bytes(b, length(b, Entry.MAX_KEY_BYTES, "key")), ballot, epoch);
            }
            case PROPOSE -> new Propose(b.getLong(), entry(b), epoch);
            case COMMIT -> new Commit(b.getLong(), entry(b), epoch);
            default ->
                throw new IllegalArgumentException("unknown Paxos request type 0x" + Integer.toHexString(type & 0xFF));
        };
        end(b);
        return r;
    }

    /**
     * Decodes a reply.
     *
     * @throws IllegalArgumentException if {@code bytes} is not one well-formed reply (STALE of format 2, the
     *                                  others of format 1 or 2)
     */
    public static Reply decodeReply(byte[] bytes) {
        try {
            return reply(bytes);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a Paxos reply cut short at " + bytes.length + " bytes", e);
        }
    }

    private static Reply reply(byte[] bytes) {
        ByteBuffer b = start(bytes);
        int format = bytes[0] & 0xFF;
        byte type = b.get();
        Reply r = switch (type) {
            case PROMISE -> {
                boolean ok = flag(b);
                long promised = b.getLong();
                long accepted = b.getLong();
                long committed = b.getLong();
                Entry proposal = optEntry(b);
                Entry current = optEntry(b);
                int n = b.get() & 0xFF;
                if (n > PaxosState.RECENT) {
                    throw new IllegalArgumentException("a promise with " + n + " recent versions");
                }
                long[] recent = new long[n];
                for (int i = 0; i < n; i++) {
                    recent[i] = b.getLong();
                }
                yield new Promise(ok, promised, accepted, proposal, committed, current, recent);
            }
            case ACCEPTED -> new Accepted(flag(b), b.getLong());
            case COMMITTED -> new Committed();
            case STALE -> {
                long epoch = b.getLong();
                if (format == FORMAT_1 || epoch <= 0) {
                    throw new IllegalArgumentException("a STALE reply of format " + format + " at epoch " + epoch);
                }
                yield new Stale(epoch);
            }
            default ->
                throw new IllegalArgumentException("unknown Paxos reply type 0x" + Integer.toHexString(type & 0xFF));
        };
        end(b);
        return r;
    }

    /** Bytes of {@code e} in the {@code entry} encoding. */
    static int entrySize(Entry e) {
        return ENTRY_HEADER + e.key().length + (e.value() == null ? 0 : e.value().length);
    }

    static void putEntry(ByteBuffer b, Entry e) {
        byte[] value = e.value();
        b.put((byte) (value == null ? 1 : e.typed() ? 4 : 0))
                .putLong(e.version())
                .putLong(e.expiresAtMs());
        b.putInt(e.key().length).putInt(value == null ? 0 : value.length).put(e.key());
        if (value != null) {
            b.put(value);
        }
    }

    static Entry entry(ByteBuffer b) {
        int flags = b.get() & 0xFF;
        if ((flags & ~(1 | 4)) != 0 || flags == (1 | 4)) { // bit 0 tombstone, bit 2 typed (not both)
            throw new IllegalArgumentException("unknown entry flags 0x" + Integer.toHexString(flags));
        }
        long version = b.getLong();
        long expiresAt = b.getLong();
        int keyLength = length(b, Entry.MAX_KEY_BYTES, "key");
        int valueLength = length(b, Integer.MAX_VALUE, "value");
        byte[] key = bytes(b, keyLength);
        byte[] value = bytes(b, valueLength);
        if ((flags & 1) != 0) {
            if (valueLength != 0) {
                throw new IllegalArgumentException("a tombstone with a value of " + valueLength + " bytes");
            }
            return new Entry(key, version, expiresAt, null);
        }
        return new Entry(key, version, expiresAt, value, (flags & 4) != 0);
    }

    private static byte[] ballotAndEntry(byte type, long epoch, long ballot, Entry e) {
        ByteBuffer b = ByteBuffer.allocate(headSize(epoch) + 8 + entrySize(e));
        putHead(b, type, epoch);
        b.putLong(ballot);
        putEntry(b, e);
        return b.array();
    }

    /** Bytes of a request's head: format and type, and the epoch in format 2 (an epoch above 0). */
    private static int headSize(long epoch) {
        return 2 + (epoch == 0 ? 0 : 8);
    }

    /** Sets {@code b} little-endian and writes a request's head: format 1 for epoch 0, else format 2 and the epoch. */
    private static void putHead(ByteBuffer b, byte type, long epoch) {
        b.order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) (epoch == 0 ? FORMAT_1 : FORMAT)).put(type);
        if (epoch != 0) {
            b.putLong(epoch);
        }
    }

    private static int optSize(@Nullable Entry e) {
        return 1 + (e == null ? 0 : entrySize(e));
    }

    private static void putOpt(ByteBuffer b, @Nullable Entry e) {
        b.put((byte) (e == null ? 0 : 1));
        if (e != null) {
            putEntry(b, e);
        }
    }

    private static @Nullable Entry optEntry(ByteBuffer b) {
        return flag(b) ? entry(b) : null;
    }

    private static boolean flag(ByteBuffer b) {
        int f = b.get() & 0xFF;
        if (f > 1) {
            throw new IllegalArgumentException("a flag byte of " + f + ", not 0 or 1");
        }
        return f == 1;
    }

    private static ByteBuffer start(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 2) {
            throw new IllegalArgumentException("a Paxos message of " + bytes.length + " bytes");
        }
        int format = b.get() & 0xFF;
        if (format != FORMAT_1 && format != FORMAT) {
            throw new IllegalArgumentException(
                    "Paxos message format " + format + ", this node reads " + FORMAT_1 + " and " + FORMAT);
        }
        return b;
    }

    private static void end(ByteBuffer b) {
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the end of a Paxos message");
        }
    }

    private static int length(ByteBuffer b, int max, String what) {
        long n = b.getInt() & 0xFFFFFFFFL;
        if (n > max || n > b.remaining()) {
            throw new IllegalArgumentException(what + " length " + n + " passes the message's end or " + max);
        }
        return (int) n;
    }

    private static byte[] bytes(ByteBuffer b, int n) {
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }
}
