package io.ringbase.api;

import io.ringbase.api.wire.Request;

/**
 * The handler of one path of the HTTP API, or of every path under a prefix: what a {@link RouteTable}
 * sends a request to once it has matched the request's target. Implementations are stateless or
 * thread-safe; they run on workers, or on the I/O thread that read the request when {@link #runsInline}
 * says they may.
 */
public interface Route {

    /**
     * Serves one request.
     *
     * @param path    the path of the request target (origin form, without the query)
     * @param query   the target's decoded query
     * @param mayWait whether this thread may wait (a worker); on an I/O thread a route that finds it would
     *                have to wait answers {@link Outcome#BLOCKED} with nothing observable changed, and the
     *                request runs again on a worker
     * @return the outcome, which {@code Responses} turns into the response
     * @throws Exception a typed failure that {@code Responses} maps to a status ({@link BadRequestException},
     *                   {@link MethodNotAllowedException}, {@link ForbiddenException}, the engine's
     *                   {@link java.io.IOException}s, the key-value service's failures, ...)
     */
    Outcome handle(Request request, String path, QueryString query, boolean mayWait) throws Exception;

    /**
     * Whether {@code request} may be served on the I/O thread that read it: it does no more than a memtable
     * or mapped-SSTable lookup, a WAL {@code write()} that will not wait, or non-blocking calls to other
     * nodes. Default: no (it runs on a worker).
     */
    default boolean runsInline(Request request) {
        return false;
    }
}
