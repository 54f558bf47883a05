package io.ringbase.cluster.rpc;

import static io.ringbase.cluster.rpc.RpcArguments.badRequest;
import static io.ringbase.cluster.rpc.RpcArguments.hexKey;
import static io.ringbase.cluster.rpc.RpcArguments.intParam;
import static io.ringbase.cluster.rpc.RpcArguments.notAllowed;
import static io.ringbase.cluster.rpc.RpcArguments.range;
import static io.ringbase.cluster.rpc.RpcArguments.requireGet;
import static io.ringbase.cluster.rpc.RpcArguments.single;
import static io.ringbase.cluster.rpc.RpcArguments.unhex;

import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.ClockOffsetException;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.NodeState;
import io.ringbase.cluster.paxos.PaxosAcceptor;
import io.ringbase.cluster.paxos.PaxosRefusedException;
import io.ringbase.cluster.repair.MerkleTree;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.LocalReplica;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.cluster.streaming.StreamPlanCodec;
import io.ringbase.cluster.streaming.StreamSource;
import io.ringbase.logging.LogThrottle;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The server side of the node-to-node API ({@link InternalProtocol}, documented in {@code docs/http-api.md}):
 * replica reads, writes and batches of them with their versions, scan pages, the anti-entropy trees and
 * entries, streaming pages ({@link io.ringbase.cluster.streaming.StreamSource}), and a ping, all answered from this node's engine through {@link LocalReplica}'s rules. It knows
 * the protocol, not the transport: the node's HTTP server hands it each request under
 * {@link InternalProtocol#PREFIX} as an {@link RpcRequest} and sends back the {@link Reply} it answers.
 *
 * <p>When the node has a cluster secret every request must carry a valid {@link RequestSigner#HEADER}
 * HMAC, else it is refused with 403: clients must not be able to write entries with versions of their
 * choosing. Stateless and thread-safe; runs on workers, and on I/O threads when the transport says the
 * engine will not wait ({@code mayWait} false).
 */
public final class ReplicaServer {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ReplicaServer.class);

    /** Largest page a replica scan returns (bytes, about; one larger entry may pass it). */
    public static final int MAX_PAGE_BYTES = 4 << 20;

    private static final String BINARY = "application/octet-stream";
    private static final String TEXT = "text/plain; charset=utf-8";

    /** One request as the transport received it. */
    public interface RpcRequest {
        /** The method, e.g. {@code GET}. */
        String method();

        /** The path, e.g. {@link InternalProtocol#ENTRY}. */
        String path();

        /** The request target as signed (origin form, with the query). */
        String uri();

        /** A decoded query parameter, or {@code null} if absent. */
        @Nullable
        String param(String name);

        /** A header's value, or {@code null} if absent. */
        @Nullable
        String header(String name);

        /** The body; an empty array for none. */
        byte[] body();
    }

    /** What the server answers. */
    public sealed interface Answer permits Reply, Blocked {}

    /**
     * A response: its status, content type, body and extra headers (the protocol's {@link InternalProtocol#NEXT}).
     *
     * @param status      the HTTP status code
     * @param contentType the body's media type
     * @param body        the body bytes, owned by the reply
     * @param headers     extra header fields, often none
     */
    public record Reply(int status, String contentType, byte[] body, Map<String, String> headers) implements Answer {}

    /** Answering would have meant waiting on an I/O thread; nothing observable changed: run it on a worker. */
    public record Blocked() implements Answer {}

    /** The one {@link Blocked} answer. */
    public static final Blocked BLOCKED = new Blocked();

    /** The longest a metadata POST waits for the log (the log's own timeout ends it first), ms. */
    private static final long METADATA_SUBMIT_WAIT_MS = 15_000;

    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final RequestSigner signer;
    private final TimeSource time;
    private final Supplier<Placement> placement;
    private final RepairSource repair;
    private final MetadataEndpoint metadata;
    private final StreamSource stream;
    private final PeerGate gate;
    private final LogThrottle refusedLog = new LogThrottle(10, TimeUnit.SECONDS);
    private volatile @Nullable PaxosAcceptor paxos;

    /**
     * @param engine   this node's engine
     * @param clock    observes every replicated version, so this node never issues a lower one
     * @param signer   checks every request's HMAC ({@link RequestSigner#NONE}: no secret, unsigned accepted)
     * @param time     the wall clock a signature's age is measured on
     * @param placement the cluster's placement now (whom a requester index names)
     * @param repair   answers other nodes' anti-entropy requests
     * @param gate     the membership every request must carry, whether replica reads may be answered, and
     *                 the answers to hellos
     * @param metadata the cluster metadata log's endpoint ({@link MetadataEndpoint#NONE} for a static cluster)
     */
    public ReplicaServer(
            StorageEngine engine,
            HybridLogicalClock clock,
            RequestSigner signer,
            TimeSource time,
            Supplier<Placement> placement,
            RepairSource repair,
            PeerGate gate,
            MetadataEndpoint metadata) {
        this.metadata = metadata;
        this.stream = new StreamSource(engine, placement.get().self());
        this.engine = engine;
        this.gate = gate;
        this.clock = clock;
        this.signer = signer;
        this.time = time;
        this.placement = placement;
        this.repair = repair;
    }

    /**
     * Makes this server answer Paxos calls ({@link InternalProtocol#PAXOS}) with {@code acceptor}; until
     * then they are answered 503. Set once, when the node is assembled.
     */
    public ReplicaServer withPaxos(PaxosAcceptor acceptor) {
        this.paxos = acceptor;
        return this;
    }

    /** This node's Paxos acceptor, or {@code null} if it takes no Paxos calls. */
    public @Nullable PaxosAcceptor paxos() {
        return paxos;
    }

    /**
     * {@code null} if this node takes Paxos calls at all, else why not (one line). Which calls it answers
     * is the acceptor's {@code PaxosAdmission}: a node that refuses reads answers only those for keys it is
     * a pending participant of at the caller's epoch (a replacement that took over a wiped node's URL has
     * neither its promises nor all of its data yet, and must never answer for it).
     */
    public @Nullable String paxosRefusal() {
        return paxos == null ? "this node takes no Paxos calls" : null;
    }

    /**
     * Whether a request for {@code path} may be answered on an I/O thread: one key's entry read or write,
     * a batch of them, or a ping, when the engine will take writes without waiting (reads that would wait
     * for the disk answer {@link #BLOCKED} and run again on a worker).
     */
    public boolean runsInline(String method, String path) {
        if (!path.equals(InternalProtocol.ENTRY)
                && !path.equals(InternalProtocol.BATCH)
                && !path.equals(InternalProtocol.PING)) {
            return false;
        }
        return method.equals("GET") || !engine.writeMayBlock();
    }

    /**
     * Serves one internal request.
     *
     * @param mayWait whether this thread may wait on I/O (a worker); on an I/O thread a write the engine
     *                cannot take at once, or a read that would wait for the disk, makes the whole request
     *                answer {@link #BLOCKED} with nothing observable changed (writes are versioned: running
     *                it again is harmless)
     * @throws RpcException if the protocol refuses the request (400, 403, 405)
     * @throws IOException  as the engine's reads and writes
     */
    public Answer handle(RpcRequest request, boolean mayWait) throws RpcException, IOException {
        byte[] body = request.body();
        authenticate(request, body);
        if (!InternalProtocol.PATHS.contains(request.path())) {
            throw badRequest("unknown internal path " + request.path());
        }
        // a ping carries no data and changes nothing: any node (or an operator's probe) may ask it; no
        // path takes HEAD, which is answered 405 below
        String refusal =
                request.path().equals(InternalProtocol.PING) || request.method().equals("HEAD")
                        ? null
                        : gate.refusal(request.header(InternalProtocol.MEMBERSHIP));
        if (refusal != null) {
            long heldBack = refusedLog.tryLog();
            if (heldBack >= 0) {
                log.error("refused a node-to-node request ({} more since the last line): {}", heldBack, refusal);
            }
            return text(409, refusal);
        }
        String epoch = request.header(InternalProtocol.EPOCH);
        if (epoch != null) {
            try {
                metadata.sawEpoch(Long.parseLong(epoch));
            } catch (NumberFormatException e) {
                throw badRequest("header " + InternalProtocol.EPOCH + " must be a decimal epoch, got '" + epoch + "'");
            }
        }
        String method = request.method();
        switch (request.path()) {
            case InternalProtocol.ENTRY -> {
                if (method.equals("GET")) {
                    Reply refused = refusedRead();
                    if (refused != null) {
                        return refused;
                    }
                    byte[] key = hexKey(request, "id");
                    Entry found = mayWait ? engine.get(key) : LocalReplica.tryGet(engine, key);
                    if (LocalReplica.wouldWait(found)) {
                        return BLOCKED;
                    }
                    return found == null
                            ? text(404, "no such key")
                            : binary(InternalProtocol.encode(List.of(found)), Map.of());
                }
                if (method.equals("PUT")) {
                    long stored = applyReplicated(single(body), mayWait);
                    return stored == LocalReplica.NOT_APPLIED
                            ? BLOCKED
                            : new Reply(
                                    201,
                                    "text/plain",
                                    Long.toString(stored).getBytes(StandardCharsets.US_ASCII),
                                    Map.of());
                }
                throw notAllowed(method, "GET, PUT");
            }
            case InternalProtocol.ENTRIES -> {
                requireGet(method);
                Reply refused = refusedRead();
                if (refused != null) {
                    return refused;
                }
                byte[] start = hexKey(request, "start");
                String end = request.param("end");
                int max = intParam(request, "max", MAX_PAGE_BYTES);
                return page(LocalReplica.page(
                        engine,
                        start,
                        end == null ? null : unhex(end, "end"),
                        Math.min(max, MAX_PAGE_BYTES),
                        share(request.param("share"))));
            }
            case InternalProtocol.METADATA -> {
                return metadata(method, body);
            }
            case InternalProtocol.REPAIR_TREE -> {
                requireGet(method);
                try {
                    return binary(
                            repair.tree(range(request), requester(request)).toBytes(), Map.of());
                } catch (IllegalArgumentException e) {
                    throw badRequest(e.getMessage());
                }
            }
            case InternalProtocol.REPAIR_ENTRIES -> {
                if (!method.equals("POST")) {
                    throw notAllowed(method, "POST");
                }
                try {
                    BitSet leaves = MerkleTree.leafSetFromBytes(body);
                    int max = Math.min(intParam(request, "max", MAX_PAGE_BYTES), MAX_PAGE_BYTES);
                    return page(
                            repair.entries(range(request), requester(request), leaves, hexKey(request, "start"), max));
                } catch (IllegalArgumentException e) {
                    throw badRequest(e.getMessage());
                }
            }
            case InternalProtocol.STREAM -> {
                if (!method.equals("POST")) {
                    throw notAllowed(method, "POST");
                }
                Reply refused = refusedRead(); // a node that lost its data must not stream what is left
                if (refused != null) {
                    return refused;
                }
                try {
                    int max = Math.min(intParam(request, "max", MAX_PAGE_BYTES), MAX_PAGE_BYTES);
                    return page(stream.entries(StreamPlanCodec.decode(body), hexKey(request, "start"), max));
                } catch (IllegalArgumentException e) {
                    throw badRequest(e.getMessage());
                } catch (StreamSource.Busy e) {
                    return text(503, String.valueOf(e.getMessage()));
                }
            }
            case InternalProtocol.BATCH -> {
                if (!method.equals("POST")) {
                    throw notAllowed(method, "POST");
                }
                List<ReplicaBatch.Result> results = batch(body, mayWait);
                return results == null ? BLOCKED : binary(ReplicaBatch.encodeResults(results), Map.of());
            }
            case InternalProtocol.HELLO -> {
                if (!method.equals("POST")) {
                    throw notAllowed(method, "POST");
                }
                return hello(body);
            }
            case InternalProtocol.PAXOS -> {
                if (!method.equals("POST")) {
                    throw notAllowed(method, "POST");
                }
                String paxosRefusal = paxosRefusal();
                if (paxosRefusal != null) {
                    return text(503, paxosRefusal);
                }
                PaxosAcceptor acceptor = Objects.requireNonNull(paxos); // set once, before any call
                try {
                    return binary(acceptor.handle(body), Map.of());
                } catch (PaxosRefusedException e) {
                    return text(503, String.valueOf(e.getMessage()));
                } catch (IllegalArgumentException e) {
                    throw badRequest("undecodable Paxos message: " + e.getMessage());
                }
            }
            case InternalProtocol.PING -> {
                requireGet(method);
                return new Reply(200, "text/plain", InternalProtocol.pingBody(engine.unwritableReason()), Map.of());
            }
            default -> throw badRequest("unknown internal path " + request.path());
        }
    }

    /**
     * Runs a {@link ReplicaBatch}'s operations in order; an engine failure fails the whole batch.
     *
     * @return the results, or {@code null} if a write or a read would have had to wait and {@code mayWait}
     *         is false
     */
    private @Nullable List<ReplicaBatch.Result> batch(byte[] body, boolean mayWait) throws RpcException, IOException {
        List<ReplicaBatch.Op> ops;
        try {
            ops = ReplicaBatch.decodeOps(body);
        } catch (IllegalArgumentException e) {
            throw badRequest("undecodable batch: " + e.getMessage());
        }
        List<ReplicaBatch.Result> results = new ArrayList<>(ops.size());
        long answerBytes = 0;
        boolean anyFound = false;
        for (ReplicaBatch.Op op : ops) {
            ReplicaBatch.Result result = serve(op, mayWait);
            if (result == null) {
                return null;
            }
            long size = switch (result) {
                case ReplicaBatch.Found f when f.entry() != null -> 1 + EntryCodec.encodedSize(f.entry());
                case ReplicaBatch.Found f -> 1;
                default -> 9;
            };
            if (result instanceof ReplicaBatch.Found f && f.entry() != null) {
                if (anyFound && answerBytes + size > ReplicaBatch.MAX_ANSWER_BYTES) {
                    result = new ReplicaBatch.TooLarge(); // the coordinator reads it alone
                    size = 1;
                }
                anyFound = true;
            }
            results.add(result);
            answerBytes += size;
        }
        return results;
    }

    /**
     * Serves one replica operation of a coordinator by the rules of this node's replica (as one operation
     * of a batch): a write observes its version and is applied, a read or version query is answered
     * unless this node answers no replica reads now ({@link ReplicaBatch.Failed} with the reason). Both
     * transports, the HTTP batch and the binary protocol, serve through this.
     *
     * @param mayWait whether this thread may wait on I/O; if not, an operation that would wait returns
     *                {@code null} with nothing observable changed (run it again on a worker)
     * @return the result; an engine error or a version too far ahead of this node's clock is a
     *         {@link ReplicaBatch.Failed} (a write is versioned: the coordinator hints it)
     */
    public ReplicaBatch.@Nullable Result serve(ReplicaBatch.Op op, boolean mayWait) {
        try {
            switch (op) {
                case ReplicaBatch.Write w -> {
                    long stored = applyReplicated(w.entry(), mayWait);
                    return stored == LocalReplica.NOT_APPLIED ? null : new ReplicaBatch.Written(stored);
                }
                case ReplicaBatch.QueryVersion q -> {
                    String refusal = gate.readRefusal();
                    if (refusal != null) {
                        return new ReplicaBatch.Failed(refusal);
                    }
                    long version = mayWait
                            ? LocalReplica.versionOf(engine, q.key())
                            : LocalReplica.tryVersionOf(engine, q.key());
                    if (version == LocalReplica.VERSION_WOULD_WAIT) {
                        return null;
                    }
                    return version == Replica.NO_VERSION
                            ? new ReplicaBatch.Found(null)
                            : new ReplicaBatch.Written(version);
                }
                case ReplicaBatch.Read r -> {
                    String refusal = gate.readRefusal();
                    if (refusal != null) {
                        return new ReplicaBatch.Failed(refusal);
                    }
                    Entry found = mayWait ? engine.get(r.key()) : LocalReplica.tryGet(engine, r.key());
                    return LocalReplica.wouldWait(found) ? null : new ReplicaBatch.Found(found);
                }
            }
        } catch (IOException | RpcException | RuntimeException e) {
            log.warn("replica operation failed: {}", e.toString());
            return new ReplicaBatch.Failed(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** {@code null} if a peer whose membership digest is {@code digest} may call this node, else why not (one line). */
    public @Nullable String membershipRefusal(String digest) {
        return gate.refusal(digest);
    }

    /** {@code null} if this node answers replica reads now, else why not. */
    public @Nullable String readRefusal() {
        return gate.readRefusal();
    }

    /** Notes a caller's metadata epoch, so that a node behind fetches the newer metadata. */
    public void sawEpoch(long epoch) {
        metadata.sawEpoch(epoch);
    }

    /** Why this node's engine takes no writes now, or {@code null} if it does (the ping's answer). */
    public @Nullable String unwritableReason() {
        return engine.unwritableReason();
    }

    /** Whether a replica write may have to wait for the engine (then it runs on a worker). */
    public boolean writeMayBlock() {
        return engine.writeMayBlock();
    }

    /**
     * A replica write from a coordinator: observes its version (so this node's clock never issues a
     * lower one) and applies it; returns {@link Replica#writeResult}.
     *
     * @throws RpcException (400, nothing written) if the version is further ahead of this node's clock than
     *                      its maximum offset ({@link ClockOffsetException})
     */
    private long applyReplicated(Entry entry, boolean mayWait) throws IOException, RpcException {
        try {
            clock.observe(entry.version());
        } catch (ClockOffsetException e) {
            throw badRequest(e.getMessage());
        }
        return mayWait ? LocalReplica.applyChecked(engine, entry) : LocalReplica.tryApplyChecked(engine, entry);
    }

    /** The 503 answer to a replica read while this node answers none, or {@code null} if it may answer. */
    private @Nullable Reply refusedRead() {
        String why = gate.readRefusal();
        return why == null ? null : text(503, why);
    }

    /**
     * A peer's hello: the body is {@code url incarnation state} ({@link InternalProtocol#helloBody}); the
     * answer what this node remembers of it ({@link InternalProtocol#helloAnswer}).
     */
    private Reply hello(byte[] body) throws RpcException, IOException {
        String[] parts = new String(body, StandardCharsets.UTF_8).trim().split(" ");
        try {
            if (parts.length != 3 || parts[2].length() != 1) {
                throw new IllegalArgumentException("expected 'url incarnation state'");
            }
            HelloSender.Answer answer =
                    gate.hello(parts[0], Long.parseUnsignedLong(parts[1], 16), NodeState.ofCode(parts[2].charAt(0)));
            return new Reply(200, TEXT, InternalProtocol.helloAnswer(answer), Map.of());
        } catch (IllegalArgumentException e) {
            throw badRequest("undecodable hello: " + e.getMessage());
        }
    }

    /**
     * The filter of the {@code share} parameter of a scan page (docs/http-api.md, "Share description
     * encoding"), or {@code null} without one.
     *
     * @throws RpcException 400 if it does not decode, names a node not in this node's ring, or is of another
     *                      placement epoch than this node's
     */
    private @Nullable ShareFilter share(@Nullable String hex) throws RpcException {
        if (hex == null) {
            return null;
        }
        try {
            return ShareFilter.of(placement.get(), ShareCodec.decode(unhex(hex, "share")));
        } catch (IllegalArgumentException e) {
            throw badRequest("share: " + e.getMessage());
        }
    }

    private static Reply page(EntryPage page) {
        return binary(
                InternalProtocol.encode(page.entries()),
                page.hasMore() ? Map.of(InternalProtocol.NEXT, InternalProtocol.hex(page.next())) : Map.of());
    }

    private static Reply binary(byte[] body, Map<String, String> headers) {
        return new Reply(200, BINARY, body, headers);
    }

    private static Reply text(int status, String text) {
        return new Reply(status, TEXT, (text + "\n").getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /** {@link InternalProtocol#METADATA}: blocks a worker for at most the log's request timeout on a POST. */
    private Reply metadata(String method, byte[] body) throws RpcException {
        try {
            if (method.equals("GET")) {
                return binary(metadata.current(), Map.of());
            }
            if (method.equals("POST")) {
                return binary(metadata.submit(body).get(METADATA_SUBMIT_WAIT_MS, TimeUnit.MILLISECONDS), Map.of());
            }
        } catch (IllegalStateException e) {
            return text(503, String.valueOf(e.getMessage()));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException) {
                return text(409, String.valueOf(cause.getMessage()));
            }
            return text(503, String.valueOf(cause == null ? e.getMessage() : cause.getMessage()));
        } catch (TimeoutException e) {
            return text(503, "the metadata log did not commit the change within " + METADATA_SUBMIT_WAIT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return text(503, "interrupted while submitting to the metadata log");
        }
        throw notAllowed(method, "GET, POST");
    }

    private NodeId requester(RpcRequest request) throws RpcException {
        String s = request.param("requester");
        Placement now = placement.get();
        NodeId node;
        try {
            node = now.node(Integer.parseInt(s));
        } catch (RuntimeException e) {
            node = null;
        }
        if (node == null) {
            throw badRequest("parameter 'requester' must be the index of a node of the cluster at epoch " + now.epoch()
                    + " " + now.nodes() + ", got '" + s + "'");
        }
        return node;
    }

    private void authenticate(RpcRequest request, byte[] body) throws RpcException {
        String auth = request.header(RequestSigner.HEADER);
        if (!signer.verify(request.method(), request.uri(), body, auth, time.currentTimeMillis())) {
            throw new RpcException(
                    403,
                    auth == null
                            ? "internal request without " + RequestSigner.HEADER
                            : "internal request with an invalid or expired " + RequestSigner.HEADER,
                    null);
        }
    }
}
