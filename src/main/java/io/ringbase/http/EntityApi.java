package io.ringbase.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.scan.LocalBatchSource;
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

    EntityApi(StorageEngine engine, HybridLogicalClock clock, LongSupplier wallClockMs) {
        this.engine = engine;
        this.clock = clock;
        this.wallClockMs = wallClockMs;
    }

    /**
     * Serves one request.
     *
     * @param uri  the request target as sent ({@code /v0/entity?id=a})
     * @param body the request body; read, not released
     */
    Outcome handle(HttpMethod method, String uri, ByteBuf body)
            throws BadRequestException, MethodNotAllowedException, IOException {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
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
        QueryString query = QueryString.parse(q < 0 ? null : uri.substring(q + 1));
        if (route == Route.ENTITIES) {
            return scan(query);
        }
        byte[] key = requireKey(query, "id");
        if (method.equals(HttpMethod.GET)) {
            return get(key);
        } else if (method.equals(HttpMethod.PUT)) {
            return put(key, query, body);
        } else {
            engine.apply(Entry.tombstone(key, clock.now()));
            return new Outcome.Deleted();
        }
    }

    private Outcome get(byte[] key) throws IOException {
        Entry e = engine.get(key);
        if (e == null || !e.isLive(wallClockMs.getAsLong())) {
            return new Outcome.Missing();
        }
        return new Outcome.Value(e.value());
    }

    private Outcome put(byte[] key, QueryString query, ByteBuf body) throws BadRequestException, IOException {
        String ttl = query.string("ttl");
        long expiresAtMs = Entry.NO_EXPIRY;
        if (ttl != null) {
            expiresAtMs = Math.addExact(wallClockMs.getAsLong(), Ttl.parseMillis(ttl));
        }
        byte[] value = ByteBufUtil.getBytes(body); // the engine keeps the array; the buffer goes back to the pool
        engine.apply(new Entry(key, clock.now(), expiresAtMs, value));
        return new Outcome.Written();
    }

    private Outcome scan(QueryString query) throws BadRequestException, IOException {
        byte[] start = requireKey(query, "start");
        byte[] end = query.bytes("end");
        if (end != null) {
            checkKeyLength("end", end);
        }
        if (end != null && Keys.compare(start, end) >= 0) {
            return new Outcome.Range(LocalBatchSource.empty()); // not every engine accepts end < start
        }
        return new Outcome.Range(new LocalBatchSource(engine.scan(start, end, true)));
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
