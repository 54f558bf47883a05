package io.ringbase.node;

import io.netty.buffer.ByteBufUtil;
import io.ringbase.api.BadRequestException;
import io.ringbase.api.ForbiddenException;
import io.ringbase.api.MethodNotAllowedException;
import io.ringbase.api.Outcome;
import io.ringbase.api.QueryString;
import io.ringbase.api.Route;
import io.ringbase.api.wire.Request;
import io.ringbase.cluster.rpc.ReplicaServer;
import io.ringbase.cluster.rpc.RpcException;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The node-to-node API as a route of the node's HTTP server: hands each request under
 * {@code /internal/v0/} to the {@link ReplicaServer}, which knows the protocol and not the transport, and
 * turns its answers back into the HTTP API's outcomes and failures. It lives here, where the node is
 * assembled, so that neither the public API nor the cluster depends on the other.
 */
final class RpcRoute implements Route {

    private static final byte[] EMPTY = new byte[0];

    private final ReplicaServer server;

    RpcRoute(ReplicaServer server) {
        this.server = server;
    }

    @Override
    public boolean runsInline(Request request) {
        String uri = request.uri();
        int q = uri.indexOf('?');
        return server.runsInline(request.method().name(), q < 0 ? uri : uri.substring(0, q));
    }

    @Override
    public Outcome handle(Request request, String path, QueryString query, boolean mayWait)
            throws BadRequestException, ForbiddenException, MethodNotAllowedException, IOException {
        byte[] body = request.content().isReadable() ? ByteBufUtil.getBytes(request.content()) : EMPTY;
        ReplicaServer.RpcRequest call = new ReplicaServer.RpcRequest() {
            @Override
            public String method() {
                return request.method().name();
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public String uri() {
                return request.uri();
            }

            @Override
            public @Nullable String param(String name) {
                return query.string(name);
            }

            @Override
            public @Nullable String header(String name) {
                return request.header(name);
            }

            @Override
            public byte[] body() {
                return body;
            }
        };
        try {
            return switch (server.handle(call, mayWait)) {
                case ReplicaServer.Reply r -> new Outcome.Reply(r.status(), r.contentType(), r.body(), r.headers());
                case ReplicaServer.Blocked b -> Outcome.BLOCKED;
            };
        } catch (RpcException e) {
            if (e.status() == 403) {
                throw new ForbiddenException(e.getMessage());
            }
            String allow = e.allow(); // set on every 405
            if (e.status() == 405 && allow != null) {
                throw new MethodNotAllowedException(request.method().name(), allow);
            }
            throw new BadRequestException(e.getMessage());
        }
    }
}
