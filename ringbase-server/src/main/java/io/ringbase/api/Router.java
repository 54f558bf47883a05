package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.ringbase.api.wire.Request;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.cluster.replication.QuorumException;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;

/**
 * Sends each request to the API that owns its path: the node-to-node {@link InternalApi}
 * ({@code /internal/v0/}), the {@link AdminApi} ({@code /v0/admin/}), the {@link OpsApi} (health and
 * readiness checks) or the public {@link EntityApi}; an unknown path is {@link BadRequestException}.
 * Parses the request target once. Stateless and thread-safe.
 */
final class Router {

    private final EntityApi entities;
    private final InternalApi internal;
    private final AdminApi admin;
    private final OpsApi ops;
    private final StorageEngine engine;

    Router(EntityApi entities, InternalApi internal, AdminApi admin, OpsApi ops, StorageEngine engine) {
        this.entities = entities;
        this.internal = internal;
        this.admin = admin;
        this.ops = ops;
        this.engine = engine;
    }

    /**
     * Whether {@code request} may be served on the event loop that read it: a point request (one key's
     * GET/PUT/DELETE, a replica's entry read or write or batch of them, a ping) that does no more than a memtable or
     * mapped-SSTable lookup and a WAL {@code write()}, because the engine says a write will not wait for
     * an fsync or a stalled flush ({@link StorageEngine#writeMayBlock()}). Scans, repair and admin
     * requests, and writes that may block, go to the workers. In a cluster the coordinator's replica
     * calls are non-blocking, so a coordinated request qualifies too.
     */
    boolean runsInline(Request request) {
        String uri = request.uri();
        if (isPath(uri, OpsApi.HEALTH) || isPath(uri, OpsApi.READY)) {
            return true; // no I/O; a load balancer's check should not wait behind a full worker queue
        }
        if (!isPath(uri, EntityApi.Route.ENTITY.path) && !isPath(uri, InternalProtocol.ENTRY)
                && !isPath(uri, InternalProtocol.BATCH) && !isPath(uri, InternalProtocol.PING)) {
            return false;
        }
        return request.method().equals(HttpMethod.GET) || !engine.writeMayBlock();
    }

    /**
     * Whether {@code request} is a single node's point request ({@code /v0/entity}), which
     * {@link #serveInline} answers on the event loop without response objects.
     */
    boolean isFastPath(Request request) {
        return entities.isSingleNode() && isPath(request.target(), ENTITY_PATH);
    }

    /**
     * Serves a {@link #isFastPath} request on the event loop: the complete raw response, or {@code null}
     * if it must run on a worker instead (a write the engine could not take without waiting).
     *
     * @throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException, IOException as
     *         {@link #handle} does
     */
    ByteBuf serveInline(Request request, ByteBufAllocator alloc, java.util.function.BooleanSupplier stopping)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException, IOException {
        QueryString query = QueryString.parse(request.target(), ENTITY_PATH.length + 1);
        return entities.serveInline(request, query, alloc, stopping);
    }

    /**
     * Stages a {@link #isFastPath} PUT or DELETE in the event loop's {@code batch}
     * ({@link EntityApi#stageWrite}).
     *
     * @return the status to answer once the batch is applied, or {@code null} if nothing was staged
     *         (not a write, or no room in the batch): serve it with {@link #serveInline}
     */
    io.ringbase.api.wire.RawResponses.Status stageInlineWrite(Request request, io.ringbase.storage.WriteBatch batch)
            throws BadRequestException, PayloadTooLargeException {
        HttpMethod method = request.method();
        if (method != HttpMethod.PUT && method != HttpMethod.DELETE) {
            return null;
        }
        QueryString query = QueryString.parse(request.target(), ENTITY_PATH.length + 1);
        return entities.stageWrite(request, query, batch);
    }

    /** Applies staged writes as far as the engine can without waiting ({@link StorageEngine#tryApplyAll}). */
    void applyInlineWrites(io.ringbase.storage.WriteBatch batch) throws IOException {
        engine.tryApplyAll(batch);
    }

    private static final byte[] ENTITY_PATH = EntityApi.Route.ENTITY.path.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Whether the request target {@code target} has the path {@code path} (with or without a query). */
    private static boolean isPath(byte[] target, byte[] path) {
        return target.length >= path.length && java.util.Arrays.equals(target, 0, path.length, path, 0, path.length)
                && (target.length == path.length || target[path.length] == '?');
    }

    /** Whether the request target {@code uri} has the path {@code path} (with or without a query). */
    private static boolean isPath(String uri, String path) {
        return uri.startsWith(path) && (uri.length() == path.length() || uri.charAt(path.length()) == '?');
    }

    /**
     * Serves one request, on a worker thread or, if {@link #runsInline}, on the event loop.
     *
     * @throws BadRequestException, MethodNotAllowedException, ForbiddenException, IOException as the APIs do
     */
    Outcome handle(Request request, boolean mayWait)
            throws BadRequestException, NotFoundException, MethodNotAllowedException, ForbiddenException,
            PayloadTooLargeException, QuorumException, IOException {
        String uri = request.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        QueryString query = q < 0 ? QueryString.parse(null) : QueryString.parse(request.target(), q + 1);
        if (InternalApi.owns(path)) {
            return internal.handle(request, path, query, mayWait);
        }
        if (AdminApi.owns(path)) {
            return admin.handle(request, path, query);
        }
        if (OpsApi.owns(path)) {
            return ops.handle(request.method(), path);
        }
        return entities.handle(request.method(), path, query, request.content(), request.header("accept"));
    }
}
