package io.ringbase.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
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

    /**
     * Serves one request.
     *
     * @param path  the path of the request target ({@code /v0/entity})
     * @param query its decoded query string
     * @param body the request body; read, not released
     */
    Outcome handle(HttpMethod method, String path, QueryString query, ByteBuf body)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException, QuorumException,
            IOException {
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
            return scan(query);
        }
        byte[] key = requireKey(query, "id");
        Replication r = replication(query);
        if (method.equals(HttpMethod.GET)) {
            return get(key, r);
        } else if (method.equals(HttpMethod.PUT)) {
            return put(key, query, body, r);
        } else {
            Entry tombstone = Entry.tombstone(key, clock.now());
            if (coordinator != null) {
                return new Outcome.Pending(coordinator.write(tombstone, r.ack, r.from).thenApply(v -> new Outcome.Deleted()));
            }
            engine.apply(tombstone);
            return new Outcome.Deleted();
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
        return found(engine.get(key));
    }

    private Outcome found(Entry e) {
        if (e == null || !e.isLive(wallClockMs.getAsLong())) {
            return new Outcome.Missing();
        }
        return new Outcome.Value(e.value());
    }

    private Outcome put(byte[] key, QueryString query, ByteBuf body, Replication r)
            throws BadRequestException, PayloadTooLargeException, IOException {
        if (body.readableBytes() > maxBodyBytes) { // the aggregator lets internal-size bodies through
            throw new PayloadTooLargeException(maxBodyBytes);
        }
        String ttl = query.string("ttl");
        long expiresAtMs = Entry.NO_EXPIRY;
        if (ttl != null) {
            expiresAtMs = Math.addExact(wallClockMs.getAsLong(), Ttl.parseMillis(ttl));
        }
        byte[] value = ByteBufUtil.getBytes(body); // the engine keeps the array; the buffer goes back to the pool
        Entry entry = new Entry(key, clock.now(), expiresAtMs, value);
        if (coordinator != null) {
            return new Outcome.Pending(coordinator.write(entry, r.ack, r.from).thenApply(v -> new Outcome.Written()));
        }
        engine.apply(entry);
        return new Outcome.Written();
    }

    private Outcome scan(QueryString query) throws BadRequestException, QuorumException, IOException {
        byte[] start = requireKey(query, "start");
        boolean local = booleanParam(query, "local");
        byte[] end = query.bytes("end");
        if (end != null) {
            checkKeyLength("end", end);
        }
        if (end != null && Keys.compare(start, end) >= 0) {
            return new Outcome.Range(LocalBatchSource.empty()); // not every engine accepts end < start
        }
        if (coordinator != null && !local) {
            // Every key written with the default quorum is on any (n - quorum + 1) nodes.
            int n = coordinator.topology().size();
            int needed = n - Topology.quorum(n) + 1;
            List<Replica> up = upReplicas(needed);
            if (up.size() < needed) {
                throw new QuorumException.Unavailable(needed, n, up.size());
            }
            return new Outcome.Range(new ClusterScan(up, start, end, wallClockMs));
        }
        return new Outcome.Range(new LocalBatchSource(engine.scan(start, end, true)));
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
