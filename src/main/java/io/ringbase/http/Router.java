package io.ringbase.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.ringbase.cluster.replication.QuorumException;
import java.io.IOException;

/**
 * Sends each request to the API that owns its path: the node-to-node {@link InternalApi}
 * ({@code /internal/v0/}), the {@link AdminApi} ({@code /v0/admin/}) or the public {@link EntityApi}.
 * Parses the request target once. Stateless and thread-safe.
 */
final class Router {

    private final EntityApi entities;
    private final InternalApi internal;
    private final AdminApi admin;

    Router(EntityApi entities, InternalApi internal, AdminApi admin) {
        this.entities = entities;
        this.internal = internal;
        this.admin = admin;
    }

    /**
     * Serves one request on a worker thread.
     *
     * @throws BadRequestException, MethodNotAllowedException, ForbiddenException, IOException as the APIs do
     */
    Outcome handle(FullHttpRequest request)
            throws BadRequestException, MethodNotAllowedException, ForbiddenException, PayloadTooLargeException,
            QuorumException, IOException {
        String uri = request.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        QueryString query = QueryString.parse(q < 0 ? null : uri.substring(q + 1));
        if (InternalApi.owns(path)) {
            return internal.handle(request, path, query);
        }
        if (AdminApi.owns(path)) {
            return admin.handle(request.method(), path, query);
        }
        return entities.handle(request.method(), path, query, request.content());
    }
}
