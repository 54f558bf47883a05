package io.ringbase.cluster.rpc;

import io.ringbase.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body codec of {@link InternalProtocol#BATCH}: several replica reads and writes to one node in one
 * request, answered in one response, so a coordinator under load sends one message per target node
 * and event-loop turn instead of one per client request.
 *
 * <pre>
 * request  := op*
 * op       := kind u8 entry                 entry as in EntryCodec (docs/http-api.md)
 *   kind 'W' (0x57): write the entry (Replica#writeChecked)
 *   kind 'R' (0x52): read the entry's key; the rest of the entry is ignored (sent as a tombstone, version 0)
 *   kind 'Q' (0x51): the version held for the entry's key (Replica#version), sent as 'R' is
 * response := result*                       one per op, in op order
 * result   := 'V' (0x56) version i64        a write's result (Replica#writeResult), or the version a
 *                                           'Q' found (tombstones and expired entries included); little-endian
 *           | 'F' (0x46) entry              a read that found an entry (tombstones included)
 *           | 'N' (0x4E)                    a read or 'Q' that found nothing
 *           | 'L' (0x4C)                    a read whose entry did not fit the answer's byte budget
 *                                           ({@link #MAX_ANSWER_BYTES}): ask for it alone
 *           | 'E' (0x45) len u16 reason     this operation failed (UTF-8 reason); the others stand
 * </pre>
 * Bounds: at most {@link #MAX_OPS} operations; a request body of at most {@link #MAX_REQUEST_BYTES}
 * (an operation larger than {@link #MAX_OP_BYTES} is never batched: it travels alone); an answer of at
 * most {@link #MAX_ANSWER_BYTES} plus one found entry (the first read always gets its entry). The body
 * is covered by the HMAC like any internal request. Stateless.
 */
public final class ReplicaBatch {

    static final byte WRITE = 'W';
    static final byte READ = 'R';
    static final byte QUERY_VERSION = 'Q';
    static final byte VERSION = 'V';
    static final byte FOUND = 'F';
    static final byte ABSENT = 'N';
    static final byte TOO_LARGE = 'L';
    static final byte FAILED = 'E';

    /** Most operations in one batch (a replica refuses more with 400). */
    public static final int MAX_OPS = 64;
    /** Largest operation that is batched (bytes encoded); larger ones are sent alone. */
    public static final int MAX_OP_BYTES = 64 * 1024;
    /** A batch's request body stays within this many bytes. */
    public static final int MAX_REQUEST_BYTES = 256 * 1024;
    /** Found entries stop being included in an answer once it holds this many bytes (see 'L'). */
    public static final int MAX_ANSWER_BYTES = 1024 * 1024;

    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ReplicaBatch() {}

    /** One operation of a batch. */
    public sealed interface Op permits Write, Read, QueryVersion {}

    /** Write {@code entry}; answered with a {@link Written}. */
    public record Write(Entry entry) implements Op {}

    /** Read {@code key}; answered with a {@link Found}. */
    public record Read(byte[] key) implements Op {}

    /**
     * The version held for {@code key}; answered with a {@link Written} carrying it, or a {@link Found}
     * of {@code null} if the replica holds nothing for the key. (The first phase of a quorum write.)
     */
    public record QueryVersion(byte[] key) implements Op {}

    /** The answer to one operation. */
    public sealed interface Result permits Written, Found, TooLarge, Failed {}

    /** A read whose entry did not fit the answer: ask for it alone. */
    public record TooLarge() implements Result {}

    /** The operation failed on the replica (an engine error); the batch's other answers stand. */
    public record Failed(String reason) implements Result {}

    /** {@link io.ringbase.cluster.replication.Replica#writeResult} of a {@link Write}. */
    public record Written(long version) implements Result {}

    /** The entry a {@link Read} found, or {@code null}. */
    public record Found(@Nullable Entry entry) implements Result {}

    /** Encodes a request body. */
    public static byte[] encodeOps(List<Op> ops) {
        long size = 0;
        for (Op op : ops) {
            size += encodedSize(op);
        }
        byte[] out = new byte[Math.toIntExact(size)];
        MemorySegment seg = MemorySegment.ofArray(out);
        long p = 0;
        for (Op op : ops) {
            out[(int) p++] = switch (op) {
                case Write w -> WRITE;
                case Read r -> READ;
                case QueryVersion q -> QUERY_VERSION;
            };
            p = EntryCodec.write(entryOf(op), seg, p);
        }
        return out;
    }

    /**
     * Decodes a request body.
     *
     * @throws IllegalArgumentException if it is not a valid encoding
     */
    public static List<Op> decodeOps(byte[] body) {
        MemorySegment seg = MemorySegment.ofArray(body);
        List<Op> ops = new ArrayList<>();
        long p = 0;
        while (p < body.length) {
            if (ops.size() == MAX_OPS) {
                throw new IllegalArgumentException("more than " + MAX_OPS + " operations");
            }
            byte kind = body[(int) p++];
            long size = EntryCodec.checkedSize(seg, p, body.length);
            Entry e = EntryCodec.read(seg, p, body.length);
            p += size;
            ops.add(
                    switch (kind) {
                        case WRITE -> new Write(e);
                        case READ -> new Read(e.key());
                        case QUERY_VERSION -> new QueryVersion(e.key());
                        default ->
                            throw new IllegalArgumentException(
                                    "unknown batch op kind " + (kind & 0xff) + " at " + (p - size - 1));
                    });
        }
        return ops;
    }

    /** Encodes a response body. */
    public static byte[] encodeResults(List<Result> results) {
        long size = 0;
        for (Result r : results) {
            size += switch (r) {
                case Written w -> 1 + 8;
                case Found f -> f.entry() == null ? 1 : 1 + EntryCodec.encodedSize(f.entry());
                case TooLarge t -> 1;
                case Failed f -> 1 + 2 + reasonBytes(f).length;
            };
        }
        byte[] out = new byte[Math.toIntExact(size)];
        MemorySegment seg = MemorySegment.ofArray(out);
        long p = 0;
        for (Result r : results) {
            switch (r) {
                case Written w -> {
                    out[(int) p++] = VERSION;
                    seg.set(LONG_LE, p, w.version());
                    p += 8;
                }
                case Found f -> {
                    Entry e = f.entry();
                    if (e == null) {
                        out[(int) p++] = ABSENT;
                    } else {
                        out[(int) p++] = FOUND;
                        p = EntryCodec.write(e, seg, p);
                    }
                }
                case TooLarge t -> out[(int) p++] = TOO_LARGE;
                case Failed f -> {
                    byte[] reason = reasonBytes(f);
                    out[(int) p++] = FAILED;
                    seg.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), p, (short)
                            reason.length);
                    p += 2;
                    MemorySegment.copy(reason, 0, seg, ValueLayout.JAVA_BYTE, p, reason.length);
                    p += reason.length;
                }
            }
        }
        return out;
    }

    /** A failure's reason as sent: UTF-8, at most 1,000 bytes. */
    private static byte[] reasonBytes(Failed f) {
        byte[] b = String.valueOf(f.reason()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return b.length <= 1000 ? b : java.util.Arrays.copyOf(b, 1000);
    }

    /**
     * Decodes a response body to the results of {@code count} operations.
     *
     * @throws IllegalArgumentException if it is not a valid encoding or holds another number of results
     */
    public static List<Result> decodeResults(byte[] body, int count) {
        MemorySegment seg = MemorySegment.ofArray(body);
        List<Result> results = new ArrayList<>(count);
        long p = 0;
        while (p < body.length) {
            byte kind = body[(int) p++];
            switch (kind) {
                case VERSION -> {
                    if (p + 8 > body.length) {
                        throw new IllegalArgumentException("truncated version at " + p);
                    }
                    results.add(new Written(seg.get(LONG_LE, p)));
                    p += 8;
                }
                case FOUND -> {
                    long size = EntryCodec.checkedSize(seg, p, body.length);
                    results.add(new Found(EntryCodec.read(seg, p, body.length)));
                    p += size;
                }
                case ABSENT -> results.add(new Found(null));
                case TOO_LARGE -> results.add(new TooLarge());
                case FAILED -> {
                    if (p + 2 > body.length) {
                        throw new IllegalArgumentException("truncated failure at " + p);
                    }
                    int n = seg.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), p) & 0xFFFF;
                    p += 2;
                    if (p + n > body.length) {
                        throw new IllegalArgumentException("truncated failure reason at " + p);
                    }
                    results.add(new Failed(new String(body, (int) p, n, java.nio.charset.StandardCharsets.UTF_8)));
                    p += n;
                }
                default ->
                    throw new IllegalArgumentException("unknown batch result kind " + (kind & 0xff) + " at " + (p - 1));
            }
        }
        if (results.size() != count) {
            throw new IllegalArgumentException(results.size() + " results for " + count + " operations");
        }
        return results;
    }

    /** Bytes {@code op} takes in a request body. */
    static long encodedSize(Op op) {
        return 1 + EntryCodec.encodedSize(entryOf(op));
    }

    private static Entry entryOf(Op op) {
        return switch (op) {
            case Write w -> w.entry();
            case Read r -> Entry.tombstone(r.key(), 0);
            case QueryVersion q -> Entry.tombstone(q.key(), 0);
        };
    }
}
