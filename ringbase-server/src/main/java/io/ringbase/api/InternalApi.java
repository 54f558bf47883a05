package io.ringbase.api;

import io.netty.buffer.ByteBufUtil;
import io.ringbase.api.wire.Request;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.clock.ClockOffsetException;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.cluster.rpc.ReplicaBatch;
import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.repair.MerkleTree;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.LocalReplica;
import java.util.ArrayList;
import java.util.BitSet;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.io.IOException;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The server side of the node-to-node API ({@link InternalProtocol}, documented in
 * {@code docs/http-api.md}): replica reads, writes and scan pages with their versions, and a ping.
 * Runs on worker threads; stateless and thread-safe.
 *
 * <p>When a cluster secret is configured every request must carry a valid {@link RequestSigner#HEADER}
 * HMAC ({@link RequestSigner}), else it is refused with {@link ForbiddenException} (403): clients must not
 * be able to write entries with versions of their choosing.
 */
final class InternalApi {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(InternalApi.class);


    private static final byte[] EMPTY = new byte[0];

    /** Largest page a replica scan returns (bytes, about; one larger entry may pass it). */
    static final int MAX_PAGE_BYTES = 4 << 20;

    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final RequestSigner signer;
    private final LongSupplier wallClockMs;
    private final Topology topology;
    private final RepairSource repair;

    /**
     * @param signer   checks every request's HMAC, or {@code null} to accept unsigned requests (no secret)
     * @param topology the cluster, or {@code null} on a single node
     * @param repair   serves the anti-entropy paths, or {@code null} on a single node
     */
    InternalApi(StorageEngine engine, HybridLogicalClock clock, RequestSigner signer, LongSupplier wallClockMs,
                Topology topology, RepairSource repair) {
        this.engine = engine;
        this.topology = topology;
        this.repair = repair;
        this.clock = clock;
        this.signer = signer;
        this.wallClockMs = wallClockMs;
    }

    /** Whether {@code path} belongs to this API. */
    static boolean owns(String path) {
        return path.startsWith(InternalProtocol.PREFIX);
    }

    /**
     * Serves one internal request.
     *
     * @param mayWait whether this thread may wait on I/O (a worker); on an event loop a write the engine
     *                cannot take at once, or a read that would wait for the disk, makes the whole request
     *                answer {@link Outcome.Blocked} with nothing observable changed (writes are versioned:
     *                running it again is harmless)
     */
    Outcome handle(Request request, String path, QueryString query, boolean mayWait)
            throws BadRequestException, MethodNotAllowedException, ForbiddenException, IOException {
        byte[] body = request.content().isReadable() ? ByteBufUtil.getBytes(request.content()) : EMPTY;
        authenticate(request, body);
        HttpMethod method = request.method();
        switch (path) {
            case InternalProtocol.ENTRY -> {
                if (method.equals(HttpMethod.GET)) {
                    byte[] key = hexKey(query, "id");
                    Entry found = mayWait ? engine.get(key) : LocalReplica.tryGet(engine, key);
                    return found == LocalReplica.WOULD_WAIT ? Outcome.BLOCKED : new Outcome.Stored(found);
                }
                if (method.equals(HttpMethod.PUT)) {
                    Entry entry = single(body);
                    long stored = applyReplicated(entry, mayWait);
                    return stored == LocalReplica.NOT_APPLIED ? Outcome.BLOCKED : new Outcome.Applied(stored);
                }
                throw new MethodNotAllowedException(method.name(), "GET, PUT");
            }
            case InternalProtocol.ENTRIES -> {
                requireGet(method);
                byte[] start = hexKey(query, "start");
                String end = query.string("end");
                int max = intParam(query, "max", MAX_PAGE_BYTES);
                return new Outcome.Page(LocalReplica.page(engine, start, end == null ? null : unhex(end, "end"),
                        Math.min(max, MAX_PAGE_BYTES)));
            }
            case InternalProtocol.REPAIR_TREE -> {
                requireGet(method);
                RepairSource source = repairSource();
                try {
                    return new Outcome.Body(source.tree(range(query), requester(query)).toBytes(),
                            "application/octet-stream");
                } catch (IllegalArgumentException e) {
                    throw new BadRequestException(e.getMessage());
                }
            }
            case InternalProtocol.REPAIR_ENTRIES -> {
                if (!method.equals(HttpMethod.POST)) {
                    throw new MethodNotAllowedException(method.name(), "POST");
                }
                RepairSource source = repairSource();
                try {
                    BitSet leaves = MerkleTree.leafSetFromBytes(body);
                    int max = Math.min(intParam(query, "max", MAX_PAGE_BYTES), MAX_PAGE_BYTES);
                    return new Outcome.Page(source.entries(range(query), requester(query), leaves,
                            hexKey(query, "start"), max));
                } catch (IllegalArgumentException e) {
                    throw new BadRequestException(e.getMessage());
                }
            }
            case InternalProtocol.BATCH -> {
                if (!method.equals(HttpMethod.POST)) {
                    throw new MethodNotAllowedException(method.name(), "POST");
                }
                List<ReplicaBatch.Result> results = batch(body, mayWait);
                if (results == null) {
                    return Outcome.BLOCKED;
                }
                return new Outcome.Body(ReplicaBatch.encodeResults(results), "application/octet-stream");
            }
            case InternalProtocol.PING -> {
                requireGet(method);
                return new Outcome.Body(InternalProtocol.pingBody(engine.unwritableReason()), "text/plain");
            }
            default -> throw new BadRequestException("unknown internal path " + path);
        }
    }

    /**
     * Runs a {@link ReplicaBatch}'s operations in order; an engine failure fails the whole batch.
     *
     * @return the results, or {@code null} if a write or a read would have had to wait and {@code mayWait}
     *         is false
     */
    private List<ReplicaBatch.Result> batch(byte[] body, boolean mayWait) throws BadRequestException, IOException {
        List<ReplicaBatch.Op> ops;
        try {
            ops = ReplicaBatch.decodeOps(body);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("undecodable batch: " + e.getMessage());
        }
        List<ReplicaBatch.Result> results = new ArrayList<>(ops.size());
        long answerBytes = 0;
        boolean anyFound = false;
        for (ReplicaBatch.Op op : ops) {
            try {
                switch (op) {
                    case ReplicaBatch.Write w -> {
                        long stored = applyReplicated(w.entry(), mayWait);
                        if (stored == LocalReplica.NOT_APPLIED) {
                            return null;
                        }
                        results.add(new ReplicaBatch.Written(stored));
                        answerBytes += 9;
                    }
                    case ReplicaBatch.QueryVersion q -> {
                        long version = mayWait ? LocalReplica.versionOf(engine, q.key())
                                : LocalReplica.tryVersionOf(engine, q.key());
                        if (version == LocalReplica.VERSION_WOULD_WAIT) {
                            return null;
                        }
                        results.add(version == io.ringbase.cluster.replication.Replica.NO_VERSION
                                ? new ReplicaBatch.Found(null) : new ReplicaBatch.Written(version));
                        answerBytes += 9;
                    }
                    case ReplicaBatch.Read r -> {
                        Entry found = mayWait ? engine.get(r.key()) : LocalReplica.tryGet(engine, r.key());
                        if (found == LocalReplica.WOULD_WAIT) {
                            return null;
                        }
                        long size = found == null ? 1 : 1 + EntryFormat.encodedSize(found);
                        if (found != null && anyFound && answerBytes + size > ReplicaBatch.MAX_ANSWER_BYTES) {
                            results.add(new ReplicaBatch.TooLarge()); // the coordinator reads it alone
                            answerBytes += 1;
                        } else {
                            results.add(new ReplicaBatch.Found(found));
                            answerBytes += size;
                            anyFound |= found != null;
                        }
                    }
                }
            } catch (IOException | BadRequestException | RuntimeException e) {
                // this operation failed (an engine error, a version too far ahead of this node's clock);
                // the others stand (a write is versioned: the coordinator hints it)
                log.warn("replica batch operation failed: {}", e.toString());
                results.add(new ReplicaBatch.Failed(e.getClass().getSimpleName() + ": " + e.getMessage()));
            }
        }
        return results;
    }

    /**
     * A replica write from a coordinator: observes its version (so this node's clock never issues a
     * lower one) and applies it; returns {@link io.ringbase.cluster.replication.Replica#writeResult}.
     *
     * @throws BadRequestException (400, nothing written) if the version is further ahead of this node's
     *                             clock than its maximum offset ({@link ClockOffsetException})
     */
    private long applyReplicated(Entry entry, boolean mayWait) throws IOException, BadRequestException {
        try {
            clock.observe(entry.version());
        } catch (ClockOffsetException e) {
            throw new BadRequestException(e.getMessage());
        }
        return mayWait ? LocalReplica.applyChecked(engine, entry) : LocalReplica.tryApplyChecked(engine, entry);
    }

    private RepairSource repairSource() throws BadRequestException {
        if (repair == null || topology == null) {
            throw new BadRequestException("this node is not part of a cluster: nothing to repair");
        }
        return repair;
    }

    private static int range(QueryString query) throws BadRequestException {
        return query.integer("range", -1); // RepairSource checks 0..15 (a missing range fails there)
    }

    private NodeId requester(QueryString query) throws BadRequestException {
        String s = query.string("requester");
        try {
            return topology.node(Integer.parseInt(s));
        } catch (RuntimeException e) {
            throw new BadRequestException("parameter 'requester' must be a node index 0.." + (topology.size() - 1)
                    + ", got '" + s + "'");
        }
    }

    private void authenticate(Request request, byte[] body) throws ForbiddenException {
        if (signer == null) {
            return;
        }
        String auth = request.header(RequestSigner.HEADER);
        if (!signer.verify(request.method().name(), request.uri(), body, auth, wallClockMs.getAsLong())) {
            throw new ForbiddenException(auth == null ? "internal request without " + RequestSigner.HEADER
                    : "internal request with an invalid or expired " + RequestSigner.HEADER);
        }
    }

    private static void requireGet(HttpMethod method) throws MethodNotAllowedException {
        if (!method.equals(HttpMethod.GET)) {
            throw new MethodNotAllowedException(method.name(), "GET");
        }
    }

    private static Entry single(byte[] body) throws BadRequestException {
        try {
            List<Entry> entries = InternalProtocol.decode(body);
            if (entries.size() != 1) {
                throw new BadRequestException("expected one encoded entry, got " + entries.size());
            }
            return entries.getFirst();
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("undecodable entry: " + e.getMessage());
        }
    }

    static byte[] hexKey(QueryString query, String name) throws BadRequestException {
        String s = query.string(name);
        if (s == null) {
            throw new BadRequestException("missing parameter '" + name + "'");
        }
        return unhex(s, name);
    }

    private static byte[] unhex(String s, String name) throws BadRequestException {
        try {
            return InternalProtocol.unhex(s);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("parameter '" + name + "' is not hex");
        }
    }

    static int intParam(QueryString query, String name, int dflt) throws BadRequestException {
        int v = query.integer(name, dflt);
        if (v <= 0) {
            throw new BadRequestException("parameter '" + name + "' must be a positive integer, got " + v);
        }
        return v;
    }
}
