package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.FastThreadLocal;
import io.ringbase.api.wire.RawResponses;
import io.ringbase.api.wire.Request;
import io.ringbase.clock.TimeSource;
import io.ringbase.kv.Condition;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.LimitedBatchSource;
import io.ringbase.kv.LocalBatchSource;
import io.ringbase.kv.Quorum;
import io.ringbase.kv.SystemKeys;
import io.ringbase.storage.ContentType;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.WriteBatch;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The v0 data API, {@code /v0/entity} (one key's GET, PUT, DELETE) and {@code /v0/entities} (range scans),
 * on the node's {@link KeyValueService}: it checks and decodes the request, calls the service and returns
 * an {@link Outcome}, or throws a typed exception ({@link BadRequestException},
 * {@link MethodNotAllowedException}, {@link PayloadTooLargeException}). It never knows whether the node is
 * alone: where the service offers the inline path ({@link KeyValueService#servesPointRequestsInline()}), a
 * point request is answered on the I/O thread straight into a raw response ({@link #serveInline},
 * {@link #stage}), else through {@link #points()} like any other route. Stateless and thread-safe.
 *
 * <p>See {@code docs/http-api.md} for the contract.
 */
final class EntityApi {

    /** The path of point requests. */
    static final String ENTITY = "/v0/entity";
    /** The path of range scans. */
    static final String ENTITIES = "/v0/entities";
    /** The methods {@link #ENTITY} takes. */
    static final String ENTITY_METHODS = "GET, PUT, DELETE";

    /** One read cursor per thread (I/O threads and workers), reused by every inline GET. */
    private static final FastThreadLocal<ReadCursor> CURSOR = new FastThreadLocal<>() {
        @Override
        protected ReadCursor initialValue() {
            return new ReadCursor();
        }
    };

    private static final Outcome MISSING = new Outcome.Missing();

    private final KeyValueService kv;
    private final TimeSource time;
    private final int maxBodyBytes;
    private final Route points = new Points();
    private final Route ranges = new Ranges();

    /**
     * @param kv           the node's key-value service
     * @param time         the wall clock a {@code ttl} counts from
     * @param maxBodyBytes the largest value a PUT may carry, bytes
     */
    EntityApi(KeyValueService kv, TimeSource time, int maxBodyBytes) {
        this.kv = kv;
        this.time = time;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The route of {@link #ENTITY}. */
    Route points() {
        return points;
    }

    /** The route of {@link #ENTITIES}. */
    Route ranges() {
        return ranges;
    }

    /** Whether point requests may be served inline ({@link #serveInline}, {@link #stage}). */
    boolean servesInline() {
        return kv.servesPointRequestsInline();
    }

    /**
     * Serves a point request on the I/O thread, straight into a raw response: a GET copies the value once,
     * from the memtable slab or the mapped SSTable into the response buffer; a PUT's value goes from the
     * request buffer to the WAL and the memtable. Nothing here waits: a write the engine cannot take at
     * once, or a read that would wait for the disk, is declined and the caller hands the request, with
     * this same {@code query}, to a worker that runs {@link #points()}. Only when {@link #servesInline()}.
     *
     * @param query    the decoded query of the {@link #ENTITY} request
     * @param stopping whether the server is stopping, asked when the response is made (a stopping server
     *                 answers {@code connection: close})
     * @return the complete response, owned by the caller, or {@code null}: declined, nothing was done
     */
    @Nullable
    ByteBuf serveInline(Request request, QueryString query, ByteBufAllocator alloc, BooleanSupplier stopping)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException, IOException {
        HttpMethod method = request.method();
        HttpVersion version = request.version();
        byte[] key = pointKey(method, query);
        if (isConditional(request) || isTyped(request)) {
            return null; // a conditional write checks and writes under a lock, a typed one copies: a worker runs it
        }
        if (method.equals(HttpMethod.GET)) {
            ReadCursor cursor = CURSOR.get();
            try {
                KeyValueService.InlineRead found = kv.tryRead(key, cursor);
                if (found == KeyValueService.InlineRead.WOULD_WAIT) {
                    return null; // a table out of the page cache: a worker reads it
                }
                boolean keepAlive = request.keepAlive() && !stopping.getAsBoolean();
                if (found == KeyValueService.InlineRead.MISSING) {
                    return RawResponses.notFound(alloc, version, keepAlive);
                }
                int length = cursor.bareValueLength();
                ByteBuf response = RawResponses.valueHead(
                        alloc, version, keepAlive, length, cursor.version(), cursor.contentType());
                ByteBufSegments.write(response, cursor.segment(), cursor.bareValueOffset(), length);
                return response;
            } finally {
                cursor.close();
            }
        }
        boolean put = method.equals(HttpMethod.PUT);
        long expiresAtMs = put ? expiry(query, request.bodyLength()) : Entry.NO_EXPIRY;
        MemorySegment value =
                put ? ByteBufSegments.of(request.bodyBuffer(), request.bodyIndex(), request.bodyLength()) : null;
        long written = kv.tryWrite(key, expiresAtMs, value);
        if (written == KeyValueService.NOT_WRITTEN) {
            return null;
        }
        return RawResponses.empty(
                alloc,
                version,
                put ? RawResponses.Status.CREATED : RawResponses.Status.ACCEPTED,
                request.keepAlive() && !stopping.getAsBoolean(),
                written);
    }

    /**
     * Stages a point PUT or DELETE served on the I/O thread in {@code batch} (its value stays in the
     * request buffer), after the checks of {@link #serveInline}; the loop applies the batch after its pass
     * ({@link InlineWrites}). Only when {@link #servesInline()}.
     *
     * @return the status to answer once the batch is applied, or {@code null} if nothing was staged (not a
     *         write, or no room in the batch for it): serve it with {@link #serveInline}
     * @throws BadRequestException       as {@link #serveInline} (nothing staged)
     * @throws MethodNotAllowedException as {@link #serveInline} (nothing staged)
     * @throws PayloadTooLargeException  as {@link #serveInline} (nothing staged)
     */
    RawResponses.@Nullable Status stage(Request request, QueryString query, WriteBatch batch)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException {
        HttpMethod method = request.method();
        if ((!method.equals(HttpMethod.PUT) && !method.equals(HttpMethod.DELETE))
                || isConditional(request)
                || isTyped(request)) {
            return null;
        }
        byte[] key = pointKey(method, query);
        if (method.equals(HttpMethod.DELETE)) {
            if (!batch.fits(key.length, 0)) {
                return null;
            }
            kv.stage(batch, key, Entry.NO_EXPIRY, null);
            return RawResponses.Status.ACCEPTED;
        }
        long expiresAtMs = expiry(query, request.bodyLength());
        if (!batch.fits(key.length, request.bodyLength())) {
            return null;
        }
        kv.stage(
                batch,
                key,
                expiresAtMs,
                ByteBufSegments.of(request.bodyBuffer(), request.bodyIndex(), request.bodyLength()));
        return RawResponses.Status.CREATED;
    }

    /** Applies staged writes as far as the service can without waiting ({@link KeyValueService#tryApplyStaged}). */
    boolean tryApplyStaged(WriteBatch batch) throws IOException {
        return kv.tryApplyStaged(batch);
    }

    /**
     * Whether a request carries a precondition ({@code If-Match} or {@code If-None-Match}). The decoder
     * keeps no header fields of a point request but these, so an unconditional one answers at once.
     */
    private static boolean isConditional(Request request) {
        return request.header("if-match") != null || request.header("if-none-match") != null;
    }

    /**
     * Whether a request carries a {@code Content-Type} other than {@code application/octet-stream} (the
     * decoder keeps no other): a PUT of it stores a typed value, off the inline path.
     */
    private static boolean isTyped(Request request) {
        return request.method().equals(HttpMethod.PUT) && request.header("content-type") != null;
    }

    /**
     * The content type a PUT stores: its {@code Content-Type}, or {@code null} when it has none or
     * {@code application/octet-stream} (untyped, stored as before content types existed).
     *
     * @throws BadRequestException if the header is not printable US-ASCII {@code type/subtype[; params]} of
     *                             at most {@value ContentType#MAX_BYTES} bytes
     */
    private static @Nullable String contentType(Request request) throws BadRequestException {
        String h = request.header("content-type");
        if (h == null || ContentType.isDefault(h)) {
            return null;
        }
        String why = ContentType.invalidReason(h);
        if (why != null) {
            throw new BadRequestException(why);
        }
        return h;
    }

    /** The key of a point request, after checking its method and its {@code ack} and {@code from}. */
    private byte[] pointKey(HttpMethod method, QueryString query)
            throws BadRequestException, MethodNotAllowedException {
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.PUT) && !method.equals(HttpMethod.DELETE)) {
            throw new MethodNotAllowedException(method.name(), ENTITY_METHODS);
        }
        byte[] key = requireKey(query, "id");
        if (SystemKeys.isSystem(key)) {
            throw new BadRequestException("keys that start with 0x00 'rb.' are reserved for the system");
        }
        quorum(query);
        return key;
    }

    /** Parses {@code ack} and {@code from}: defaults from = replication factor, ack = from / 2 + 1. */
    private Quorum quorum(QueryString query) throws BadRequestException {
        int rf = kv.replicationFactor();
        int from = query.integer("from", rf);
        int ack = query.integer("ack", Quorum.majority(from));
        if (from > rf) {
            throw new BadRequestException("from " + from + " exceeds the replication factor " + rf);
        }
        if (ack <= 0 || ack > from) {
            throw new BadRequestException(
                    "need 0 < ack <= from <= " + rf + " (the replication factor), got ack=" + ack + " from=" + from);
        }
        return new Quorum(ack, from);
    }

    /** The expiry of a PUT (Unix ms, or none) from its {@code ttl}; checks the body's size. */
    private long expiry(QueryString query, int bodyLength) throws BadRequestException, PayloadTooLargeException {
        if (bodyLength > maxBodyBytes) { // the decoder lets internal-size bodies through
            throw new PayloadTooLargeException(maxBodyBytes);
        }
        String ttl = query.string("ttl");
        return ttl == null ? Entry.NO_EXPIRY : Math.addExact(time.currentTimeMillis(), Ttl.parseMillis(ttl));
    }

    /** {@link #ENTITY}: one key's GET, PUT or DELETE through the service's general path. */
    private final class Points implements Route {
        @Override
        public boolean runsInline(Request request) {
            return !isConditional(request)
                    && !kv.callsMayBlock(!request.method().equals(HttpMethod.GET));
        }

        @Override
        public Outcome handle(Request request, String path, QueryString query, boolean mayWait) throws Exception {
            HttpMethod method = request.method();
            byte[] key = pointKey(method, query);
            Quorum quorum = quorum(query);
            if (method.equals(HttpMethod.GET)) {
                return outcome(
                        kv.get(key, quorum),
                        v -> v == null
                                ? MISSING
                                : new Outcome.Value(Unpooled.wrappedBuffer(v.value()), v.version(), v.contentType()));
            }
            boolean put = method.equals(HttpMethod.PUT);
            Condition condition = ETag.condition(request.header("if-match"), request.header("if-none-match"));
            if (condition != null) {
                ByteBuf body = request.content();
                long expiresAtMs = put ? expiry(query, body.readableBytes()) : Entry.NO_EXPIRY;
                MemorySegment value = put ? ByteBufSegments.readable(body) : null;
                String type = put ? contentType(request) : null;
                return outcome(kv.writeIf(key, value, type, expiresAtMs, condition, quorum), r -> {
                    if (!r.applied()) {
                        return new Outcome.PreconditionFailed(r.version());
                    }
                    return put ? new Outcome.Written(r.version()) : new Outcome.Deleted(r.version());
                });
            }
            if (put) {
                ByteBuf body = request.content();
                long expiresAtMs = expiry(query, body.readableBytes());
                String type = contentType(request);
                return outcome(
                        kv.put(key, ByteBufSegments.readable(body), type, expiresAtMs, quorum), Outcome.Written::new);
            }
            return outcome(kv.delete(key, quorum), Outcome.Deleted::new);
        }
    }

    /** {@link #ENTITIES}: a range scan, streamed in the format the {@code Accept} header asks for. */
    private final class Ranges implements Route {
        @Override
        public Outcome handle(Request request, String path, QueryString query, boolean mayWait) throws Exception {
            HttpMethod method = request.method();
            if (!method.equals(HttpMethod.GET)) {
                throw new MethodNotAllowedException(method.name(), "GET");
            }
            RangeFormat format = RangeFormat.of(request.header("accept"));
            byte[] start = requireKey(query, "start");
            boolean local = booleanParam(query, "local");
            byte[] end = query.bytes("end");
            if (end != null) {
                checkKeyLength("end", end);
            }
            int limit = limit(query);
            EntryBatchSource source = end != null && Keys.compare(start, end) >= 0
                    ? LocalBatchSource.empty() // not every engine accepts end < start
                    : SystemKeys.hidden(kv.scan(start, end, local));
            return limit == 0
                    ? new Outcome.Range(source, format, false)
                    : new Outcome.Range(new LimitedBatchSource(source, limit), format, true);
        }
    }

    /**
     * The outcome of a service call: at once if it has completed (a node alone completes on the calling
     * thread; its failure is thrown as it was), else {@link Outcome.Pending}.
     */
    private static <T> Outcome outcome(CompletionStage<T> result, Function<T, Outcome> done) throws Exception {
        CompletableFuture<T> f = result.toCompletableFuture();
        if (!f.isDone()) {
            return new Outcome.Pending(f.thenApply(done));
        }
        try {
            return done.apply(f.get());
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** The {@code limit} of a range request: entries of one page, at least 1; 0 when absent (no limit). */
    private static int limit(QueryString query) throws BadRequestException {
        if (query.string("limit") == null) {
            return 0;
        }
        int limit = query.integer("limit", 0);
        if (limit < 1) {
            throw new BadRequestException("parameter 'limit' must be a positive integer, got " + limit);
        }
        return limit;
    }

    static boolean booleanParam(QueryString query, String name) throws BadRequestException {
        String s = query.string(name);
        if (s == null || s.equals("false")) {
            return false;
        }
        if (s.equals("true")) {
            return true;
        }
        throw new BadRequestException("parameter '" + name + "' must be true or false, got '" + abbreviate(s) + "'");
    }

    static byte[] requireKey(QueryString query, String name) throws BadRequestException {
        byte[] key = query.bytes(name);
        if (key == null || key.length == 0) {
            throw new BadRequestException("missing or empty parameter '" + name + "'");
        }
        checkKeyLength(name, key);
        return key;
    }

    static void checkKeyLength(String name, byte[] key) throws BadRequestException {
        if (key.length > Entry.MAX_KEY_BYTES) {
            throw new BadRequestException("parameter '" + name + "' is " + key.length + " bytes of UTF-8; the limit is "
                    + Entry.MAX_KEY_BYTES);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
