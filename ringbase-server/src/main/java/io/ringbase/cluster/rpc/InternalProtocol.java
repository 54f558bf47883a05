package io.ringbase.cluster.rpc;

import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The node-to-node API (documented in {@code docs/http-api.md}, "Internal API"): paths, headers, status
 * codes and body encodings shared by the client ({@link RemoteReplica}) and the server
 * ({@link ReplicaServer}). This class is the one place that chooses the protocol's status codes.
 *
 * <p>Keys travel as lowercase hex in query strings (no form-decoding ambiguity). Entry bodies use the
 * protocol's own {@link EntryCodec} (flags, version, expiry, key, value; little-endian): one entry
 * for {@link #ENTRY}, a concatenation for a page of {@link #ENTRIES}. Bodies carry no checksum of their
 * own (TCP's checksum and the HMAC, when configured, cover them).
 */
public final class InternalProtocol {

    /** Common prefix of every internal path; the server refuses these without a valid HMAC when a secret is set. */
    public static final String PREFIX = "/internal/v0/";
    /**
     * {@code GET ?id=<hex>}: 200 with one encoded entry (tombstones included), 404 if none. {@code PUT}: body
     * is one encoded entry; 201 with the write result ({@code Replica.writeResult}) as a decimal body.
     */
    public static final String ENTRY = PREFIX + "entry";
    /** {@code GET ?start=<hex>[&end=<hex>]&max=<bytes>}: 200 with a page of encoded entries; {@link #NEXT} if more. */
    public static final String ENTRIES = PREFIX + "entries";
    /**
     * {@code POST} with a {@link ReplicaBatch} of reads and writes: 200 with one result per operation, in
     * order. Used by {@link ReplicaBatcher} for the calls a coordinator makes on an event loop.
     */
    public static final String BATCH = PREFIX + "batch";
    /**
     * {@code POST} with the body {@code url incarnation state} (the sender's URL, its incarnation in hex,
     * its state's letter, {@link #helloBody}): 200 with what this node remembers of the sender after it
     * ({@link #helloAnswer}). How a node learns whether it lost data ({@code cluster.membership}).
     */
    public static final String HELLO = PREFIX + "hello";
    /**
     * Request header of every internal call: the sender's membership digest (16 hex digits,
     * {@link io.ringbase.cluster.membership.Membership#digestHex()}). A node answers a request whose digest
     * differs from its own with 409 and a body naming its own membership.
     */
    public static final String MEMBERSHIP = "x-rb-membership";

    /**
     * The cluster metadata log ({@code cluster.elastic}). {@code GET}: 200 with this node's newest
     * {@code ClusterMetadata} record (docs/metadata-format.md), 503 if it has none (a static cluster).
     * {@code POST} with a transformation record: 200 with the metadata right after it once the log committed
     * it, 409 with the one-line reason if it was rejected, 503 if this node is not of the metadata group or
     * the log has no quorum.
     */
    public static final String METADATA = PREFIX + "metadata";

    /**
     * Request header of every internal call in a cluster whose membership comes from the metadata log: the
     * sender's metadata epoch, decimal. A node at an older epoch fetches the newer metadata at once; it acts
     * on the request meanwhile, which is safe because a replica's reads and writes of an entry do not depend
     * on the placement (only a coordinator's choice of replicas does).
     */
    public static final String EPOCH = "x-rb-epoch";

    /** {@code GET}: 200 with an empty body; a liveness probe. */
    public static final String PING = PREFIX + "ping";

    /** Leads a ping answer's body when the node's engine cannot take writes; the reason follows. */
    public static final String PING_UNWRITABLE = "unwritable: ";

    /**
     * The body of a ping answer (200): empty when the node's engine can take writes, else
     * {@value #PING_UNWRITABLE} and the engine's reason, UTF-8. An empty body is what nodes from before
     * this rule answer, so they count as writable.
     */
    public static byte[] pingBody(@Nullable String unwritableReason) {
        return unwritableReason == null
                ? new byte[0]
                : (PING_UNWRITABLE + unwritableReason).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The unwritable reason in a ping answer's body, or null if the node can take writes (any other body). */
    public static @Nullable String pingUnwritableReason(byte[] body) {
        String s = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        return s.startsWith(PING_UNWRITABLE) ? s.substring(PING_UNWRITABLE.length()) : null;
    }

    /**
     * Anti-entropy: {@code GET ?range=<0..15>&requester=<node index>}: 200 with this node's Merkle tree of
     * that hash range over the keys it shares with the requester ({@code MerkleTree.toBytes}).
     */
    public static final String REPAIR_TREE = PREFIX + "repair/tree";
    /**
     * Anti-entropy: {@code POST ?range=&requester=&start=<hex>&max=<bytes>} with a 128-byte leaf set as
     * the body: 200 with a page of the shared entries under those leaves, {@link #NEXT} if more.
     */
    public static final String REPAIR_ENTRIES = PREFIX + "repair/entries";

    /**
     * Streaming: {@code POST ?start=<hex>&max=<bytes>} with an encoded stream plan as the body
     * ({@code StreamPlanCodec}): 200 with a page of the entries the plan wants that this node holds,
     * {@link #NEXT} if more; 400 if the plan does not decode or names another node as its source.
     */
    public static final String STREAM = PREFIX + "stream";

    /**
     * One Paxos message of a compare-and-set: {@code POST} with the encoded message as the body
     * ({@code cluster.paxos.PaxosMessages}, docs/internal-protocol-v2.md "Paxos"): 200 with the encoded
     * reply; 400 if it does not decode; 503 if this node takes no Paxos calls.
     */
    public static final String PAXOS = PREFIX + "paxos";

    /** Every path of the protocol; any other under {@link #PREFIX} is answered 400. */
    public static final java.util.Set<String> PATHS =
            java.util.Set.of(ENTRY, ENTRIES, BATCH, HELLO, PING, REPAIR_TREE, REPAIR_ENTRIES, METADATA, STREAM, PAXOS);

    /** Response header of {@link #ENTRIES}: hex start key of the next page; absent on the last page. */
    public static final String NEXT = "x-rb-next";

    private static final HexFormat HEX = HexFormat.of();

    /** The body of a {@link #HELLO}: {@code url incarnation state}, UTF-8. */
    public static byte[] helloBody(String url, NodeIdentity me) {
        return (url + " " + me.incarnationHex() + " " + me.state().code()).getBytes(StandardCharsets.UTF_8);
    }

    /** A {@link #HELLO} answer's body: {@code remembers <16 hex digits>} or {@code remembers none}. */
    public static byte[] helloAnswer(HelloSender.Answer answer) {
        return ("remembers " + (answer.remembers() ? NodeIdentity.hex(answer.remembered()) : "none") + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Decodes a {@link #helloAnswer}.
     *
     * @throws IllegalArgumentException if it is not one
     */
    public static HelloSender.Answer parseHelloAnswer(byte[] body) {
        String[] parts = new String(body, StandardCharsets.UTF_8).trim().split(" ");
        if (parts.length != 2 || !parts[0].equals("remembers")) {
            throw new IllegalArgumentException("not a hello answer");
        }
        return parts[1].equals("none")
                ? HelloSender.Answer.NONE
                : new HelloSender.Answer(Long.parseUnsignedLong(parts[1], 16), true);
    }

    private InternalProtocol() {}

    public static String hex(byte[] key) {
        return HEX.formatHex(key);
    }

    /**
     * The bytes a {@link #hex} string stands for.
     *
     * @throws IllegalArgumentException if {@code s} is not an even-length hex string
     */
    public static byte[] unhex(String s) {
        return HEX.parseHex(s);
    }

    /** Encodes a page of entries (a single entry is a page of one). */
    public static byte[] encode(List<Entry> entries) {
        long size = 0;
        for (Entry e : entries) {
            size += EntryCodec.encodedSize(e);
        }
        byte[] out = new byte[Math.toIntExact(size)];
        MemorySegment seg = MemorySegment.ofArray(out);
        long p = 0;
        for (Entry e : entries) {
            p = EntryCodec.write(e, seg, p);
        }
        return out;
    }

    /**
     * Decodes a body of concatenated entries.
     *
     * @throws IllegalArgumentException if the bytes are not a valid encoding
     */
    public static List<Entry> decode(byte[] body) {
        MemorySegment seg = MemorySegment.ofArray(body);
        List<Entry> out = new ArrayList<>();
        long p = 0;
        while (p < body.length) {
            long size = EntryCodec.checkedSize(seg, p, body.length);
            out.add(EntryCodec.read(seg, p, body.length));
            p += size;
        }
        return out;
    }

    /** The stored version a replica reported after a PUT, or {@code written} if the body is empty or not a number. */
    public static long storedVersion(byte[] body, long written) {
        try {
            return body.length == 0
                    ? written
                    : Long.parseLong(new String(body, java.nio.charset.StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return written;
        }
    }

    /** A page from its body and {@link #NEXT} header value (or {@code null}). */
    public static EntryPage page(byte[] body, String next) {
        return new EntryPage(decode(body), next == null ? null : unhex(next));
    }
}
