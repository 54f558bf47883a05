package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.handler.codec.http.HttpVersion;
import io.ringbase.api.wire.RawResponses;
import io.ringbase.api.wire.Request;
import java.lang.foreign.MemorySegment;
import io.ringbase.storage.ReadCursor;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.QuorumException;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.scan.ClusterScan;
import io.ringbase.cluster.scan.LocalBatchSource;
import java.util.List;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The v0 API: routes a request to the engine and returns an {@link Outcome}, or throws a typed exception
 * ({@link BadRequestException}, {@link MethodNotAllowedException}, the engine's {@link IOException}).
 * Runs on worker threads (it may block in the engine); stateless and thread-safe.
 *
 * <p>See {@code docs/http-api.md} for the contract.
 */
final class EntityApi {

    /** The paths of API v0 and the methods each takes. */
    enum Route {
        ENTITY("/v0/entity", "GET, PUT, DELETE"),
        ENTITIES("/v0/entities", "GET");

        final String path;
        final String allow;

        Route(String path, String allow) {
            this.path = path;
            this.allow = allow;
        }

        static Route of(String path) {
            for (Route r : values()) {
                if (r.path.equals(path)) {
                    return r;
                }
            }
            return null;
        }
    }

    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final LongSupplier wallClockMs;
    private final Coordinator coordinator;
    private final int clusterSize;
    private final int maxBodyBytes;

    /**
     * @param coordinator coordinates requests over the cluster, or {@code null} for a single node (the
     *                    engine is then called directly)
     */
    EntityApi(StorageEngine engine, HybridLogicalClock clock, LongSupplier wallClockMs, Coordinator coordinator,
              int maxBodyBytes) {
        this.engine = engine;
        this.maxBodyBytes = maxBodyBytes;
        this.clock = clock;
        this.wallClockMs = wallClockMs;
        this.coordinator = coordinator != null && coordinator.topology().size() > 1 ? coordinator : null;
        this.clusterSize = coordinator == null ? 1 : coordinator.topology().size();
    }

    /** Whether this node serves point requests from its own engine alone (no coordinator). */
    boolean isSingleNode() {
        return coordinator == null;
    }

    /**
     * Serves a single node's point request on the event loop, straight into a raw response: a GET
     * copies the value once, from the memtable slab or the mapped SSTable into the response buffer; a
     * PUT's value goes from the request buffer to the WAL and the memtable. Nothing here waits: a write
     * the engine cannot take at once ({@link StorageEngine#tryApply}), or a read that would wait for the
     * disk ({@link StorageEngine#tryRead}), returns {@code null}, and the caller hands the request to a
     * worker, which runs {@link #handle}.
     *
     * @param query            the query of the {@code /v0/entity} request
     * @param stopping         whether the server is stopping, asked when the response is made (a
     *                         stopping server answers {@code connection: close})
     * @return the complete response, owned by the caller, or {@code null} (nothing was written)
     */
    ByteBuf serveInline(Request request, QueryString query, ByteBufAllocator alloc, BooleanSupplier stopping)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException, IOException {
        HttpMethod method = request.method();
        HttpVersion version = request.version();
        boolean requestKeepAlive = request.keepAlive();
        boolean get = method == HttpMethod.GET;
        boolean put = method == HttpMethod.PUT;
        if (!get && !put && method != HttpMethod.DELETE) {
            throw new MethodNotAllowedException(method.name(), Route.ENTITY.allow);
        }
        byte[] key = singleNodeKey(query);
        if (get) {
            ReadCursor cursor = CURSOR.get();
            try {
                StorageEngine.TryRead found = engine.tryRead(key, cursor);
                if (found == StorageEngine.TryRead.WOULD_WAIT) {
                    return null; // a table out of the page cache: a worker reads it
                }
                if (found == StorageEngine.TryRead.NOT_FOUND || !cursor.isLive(wallClockMs.getAsLong())) {
                    return RawResponses.notFound(alloc, version, requestKeepAlive && !stopping.getAsBoolean());
                }
                int length = cursor.valueLength();
                ByteBuf response = RawResponses.valueHead(alloc, version, requestKeepAlive && !stopping.getAsBoolean(),
                        length);
                ByteBufSegments.write(response, cursor.segment(), cursor.valueOffset(), length);
                return response;
            } finally {
                cursor.close();
            }
        }
        if (put) {
            long expiresAtMs = expiry(query, request.bodyLength());
            MemorySegment value = ByteBufSegments.of(request.bodyBuffer(), request.bodyIndex(), request.bodyLength());
            if (!engine.tryApply(key, clock.now(), expiresAtMs, value)) {
                return null;
            }
            return RawResponses.empty(alloc, version, RawResponses.Status.CREATED,
                    requestKeepAlive && !stopping.getAsBoolean());
        }
        if (!engine.tryApply(key, clock.now(), Entry.NO_EXPIRY, null)) {
            return null;
        }
        return RawResponses.empty(alloc, version, RawResponses.Status.ACCEPTED,
                requestKeepAlive && !stopping.getAsBoolean());
    }

    /**
     * Stages a single node's PUT or DELETE, served on the event loop, in {@code batch} (its value stays
     * in the request buffer), after the checks of {@link #serveInline}; the loop applies the batch after
     * its pass ({@link InlineWrites}).
     *
     * @param request a PUT or a DELETE ({@link Router#stageInlineWrite} passes no other)
     * @return the status to answer once the batch is applied, or {@code null} if the batch has no room
     *         for it (nothing staged)
     * @throws BadRequestException, PayloadTooLargeException as {@link #serveInline} (nothing staged)
     */
    RawResponses.Status stageWrite(Request request, QueryString query, io.ringbase.storage.WriteBatch batch)
            throws BadRequestException, PayloadTooLargeException {
        boolean put = request.method() == HttpMethod.PUT; // else a DELETE
        byte[] key = singleNodeKey(query);
        if (!put) {
            if (!batch.fits(key.length, 0)) {
                return null;
            }
            batch.add(key, clock.now(), Entry.NO_EXPIRY, null);
            return RawResponses.Status.ACCEPTED;
        }
        long expiresAtMs = expiry(query, request.bodyLength());
        if (!batch.fits(key.length, request.bodyLength())) {
            return null;
        }
        batch.add(key, clock.now(), expiresAtMs,
                ByteBufSegments.of(request.bodyBuffer(), request.bodyIndex(), request.bodyLength()));
        return RawResponses.Status.CREATED;
    }

    /** The key of a single node's point request, after checking its {@code ack} and {@code from}. */
    private static byte[] singleNodeKey(QueryString query) throws BadRequestException {
        byte[] key = requireKey(query, "id");
        int from = query.integer("from", 1);
        int ack = query.integer("ack", 1);
        if (ack <= 0 || ack > from || from > 1) {
            throw new BadRequestException("need 0 < ack <= from <= 1 (the cluster size), got ack=" + ack + " from=" + from);
        }
        return key;
    }

    /** The expiry of a PUT (Unix ms, or none) from its {@code ttl}; checks the body's size. */
    private long expiry(QueryString query, int bodyLength) throws BadRequestException, PayloadTooLargeException {
        if (bodyLength > maxBodyBytes) { // the decoder lets internal-size bodies through
            throw new PayloadTooLargeException(maxBodyBytes);
        }
        String ttl = query.string("ttl");
        return ttl == null ? Entry.NO_EXPIRY : Math.addExact(wallClockMs.getAsLong(), Ttl.parseMillis(ttl));
    }

    /**
     * Serves one request.
     *
     * @param path  the path of the request target ({@code /v0/entity})
     * @param query its decoded query string
     * @param body the request body; read, not released
     */
    Outcome handle(HttpMethod method, String path, QueryString query, ByteBuf body)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException,
            QuorumException, IOException {
        return handle(method, path, query, body, null);
    }

    /**
     * Serves one request, a range in the format its {@code Accept} header asks for ({@link RangeFormat#of}).
     *
     * @param path   the path of the request target ({@code /v0/entity})
     * @param query  its decoded query string
     * @param body   the request body; read, not released
     * @param accept the request's {@code Accept} header, or {@code null}
     */
    Outcome handle(HttpMethod method, String path, QueryString query, ByteBuf body, String accept)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException,
            QuorumException, IOException {
        Route route = Route.of(path);
        if (route == null) {
            throw new BadRequestException("unknown path " + abbreviate(path));
        }
        boolean methodOk = switch (route) {
            case ENTITY -> method.equals(HttpMethod.GET) || method.equals(HttpMethod.PUT)
                    || method.equals(HttpMethod.DELETE);
            case ENTITIES -> method.equals(HttpMethod.GET);
        };
        if (!methodOk) {
            throw new MethodNotAllowedException(method.name(), route.allow);
        }
        if (route == Route.ENTITIES) {
            return scan(query, RangeFormat.of(accept));
        }
        byte[] key = requireKey(query, "id");
        Replication r = replication(query);
        if (method.equals(HttpMethod.GET)) {
            return get(key, r);
        } else if (method.equals(HttpMethod.PUT)) {
            return put(key, query, body, r);
        } else {
            if (coordinator != null) {
                Entry tombstone = Entry.tombstone(key, clock.now());
                return new Outcome.Pending(coordinator.write(tombstone, r.ack, r.from).thenApply(v -> DELETED));
            }
            engine.apply(key, clock.now(), Entry.NO_EXPIRY, null);
            return DELETED;
        }
    }

    /** The {@code ack} and {@code from} of a request. */
    private record Replication(int ack, int from) {
    }

    /** Parses {@code ack} and {@code from}: defaults from = cluster size, ack = from / 2 + 1. */
    private Replication replication(QueryString query) throws BadRequestException {
        int from = query.integer("from", clusterSize);
        int ack = query.integer("ack", Topology.quorum(from));
        if (ack <= 0 || ack > from || from > clusterSize) {
            throw new BadRequestException("need 0 < ack <= from <= " + clusterSize + " (the cluster size), got ack="
                    + ack + " from=" + from);
        }
        return new Replication(ack, from);
    }

    private Outcome get(byte[] key, Replication r) throws IOException {
        if (coordinator != null) {
            return new Outcome.Pending(coordinator.read(key, r.ack, r.from).thenApply(this::found));
        }
        ReadCursor cursor = CURSOR.get();
        try {
            if (!engine.read(key, cursor) || !cursor.isLive(wallClockMs.getAsLong())) {
                return MISSING;
            }
            int length = cursor.valueLength();
            ByteBuf body = ByteBufAllocator.DEFAULT.directBuffer(length);
            ByteBufSegments.write(body, cursor.segment(), cursor.valueOffset(), length);
            return new Outcome.Value(body);
        } finally {
            cursor.close(); // unpins the memtable or table the value was copied from
        }
    }

    /** One read cursor per thread (event loops and workers), reused by every GET. */
    private static final FastThreadLocal<ReadCursor> CURSOR = new FastThreadLocal<>() {
        @Override
        protected ReadCursor initialValue() {
            return new ReadCursor();
        }
    };

    private static final Outcome MISSING = new Outcome.Missing();
    private static final Outcome WRITTEN = new Outcome.Written();
    private static final Outcome DELETED = new Outcome.Deleted();

    private Outcome found(Entry e) {
        if (e == null || !e.isLive(wallClockMs.getAsLong())) {
            return MISSING;
        }
        return new Outcome.Value(Unpooled.wrappedBuffer(e.value()));
    }

    private Outcome put(byte[] key, QueryString query, ByteBuf body, Replication r)
            throws BadRequestException, PayloadTooLargeException, IOException {
        long expiresAtMs = expiry(query, body.readableBytes());
        if (coordinator != null) {
            byte[] value = ByteBufUtil.getBytes(body); // replicas and hints keep the array
            Entry entry = new Entry(key, clock.now(), expiresAtMs, value);
            return new Outcome.Pending(coordinator.write(entry, r.ack, r.from).thenApply(v -> WRITTEN));
        }
        // the value goes from the request buffer to the WAL and the memtable slab, with no copy in between
        engine.apply(key, clock.now(), expiresAtMs, ByteBufSegments.readable(body));
        return WRITTEN;
    }

    private Outcome scan(QueryString query, RangeFormat format) throws BadRequestException, QuorumException, IOException {
        byte[] start = requireKey(query, "start");
        boolean local = booleanParam(query, "local");
        byte[] end = query.bytes("end");
        if (end != null) {
            checkKeyLength("end", end);
        }
        if (end != null && Keys.compare(start, end) >= 0) {
            return new Outcome.Range(LocalBatchSource.empty(), format); // not every engine accepts end < start
        }
        if (coordinator != null && !local) {
            // Every key written with the default quorum is on any (n - quorum + 1) nodes.
            int n = coordinator.topology().size();
            int needed = n - Topology.quorum(n) + 1;
            List<Replica> up = upReplicas(needed);
            if (up.size() < needed) {
                throw new QuorumException.Unavailable(needed, n, up.size());
            }
            return new Outcome.Range(new ClusterScan(up, start, end, wallClockMs), format);
        }
        return new Outcome.Range(new LocalBatchSource(engine.scan(start, end, true)), format);
    }

    /** The replicas up, probing believed-down ones first when fewer than {@code needed}; blocks (a worker). */
    private List<Replica> upReplicas(int needed) throws IOException {
        try {
            return coordinator.upReplicas(needed).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while probing replicas");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("probing replicas failed", e.getCause());
        }
    }

    private static boolean booleanParam(QueryString query, String name) throws BadRequestException {
        String s = query.string(name);
        if (s == null || s.equals("false")) {
            return false;
        }
        if (s.equals("true")) {
            return true;
        }
        throw new BadRequestException("parameter '" + name + "' must be true or false, got '" + abbreviate(s) + "'");
    }

    private static byte[] requireKey(QueryString query, String name) throws BadRequestException {
        byte[] key = query.bytes(name);
        if (key == null || key.length == 0) {
            throw new BadRequestException("missing or empty parameter '" + name + "'");
        }
        checkKeyLength(name, key);
        return key;
    }

    private static void checkKeyLength(String name, byte[] key) throws BadRequestException {
        if (key.length > Entry.MAX_KEY_BYTES) {
            throw new BadRequestException("parameter '" + name + "' is " + key.length
                    + " bytes of UTF-8; the limit is " + Entry.MAX_KEY_BYTES);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
