package io.ringbase.api;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.auth.RequestSigner;
import io.ringbase.api.wire.Request;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;

/**
 * Operator endpoints under {@code /v0/admin/}, what {@code ringbase admin} calls:
 * <ul>
 *   <li>{@code POST /v0/admin/repair} starts an anti-entropy repair of every range this node
 *       replicates (202), {@code GET /v0/admin/repair} reports its state as JSON;</li>
 *   <li>{@code POST /v0/admin/flush} flushes the memtable, {@code POST /v0/admin/compact} merges every
 *       SSTable into one, {@code POST /v0/admin/snapshot?name=N} takes a snapshot; each answers JSON
 *       once done.</li>
 * </ul>
 * When the node has a cluster secret every admin request must be signed as internal requests are
 * ({@link RequestSigner#HEADER}, {@link RequestSigner}), else 403: these requests change the node.
 * Stateless and thread-safe; runs on workers.
 */
final class AdminApi {

    static final String PREFIX = "/v0/admin/";
    static final String REPAIR = PREFIX + "repair";
    static final String FLUSH = PREFIX + "flush";
    static final String COMPACT = PREFIX + "compact";
    static final String SNAPSHOT = PREFIX + "snapshot";

    private static final byte[] EMPTY = new byte[0];

    private final RepairControl repair;
    private final AdminControl control;
    private final RequestSigner signer;
    private final LongSupplier wallClockMs;

    /**
     * @param repair  the repair service, or {@code null} on a single node (nothing to repair from)
     * @param control flush, compaction and snapshots, or {@code null} (those paths answer 404)
     * @param signer  checks every request's signature, or {@code null} when the node has no secret
     */
    AdminApi(RepairControl repair, AdminControl control, RequestSigner signer, LongSupplier wallClockMs) {
        this.repair = repair;
        this.control = control;
        this.signer = signer;
        this.wallClockMs = wallClockMs;
    }

    static boolean owns(String path) {
        return path.startsWith(PREFIX);
    }

    Outcome handle(Request request, String path, QueryString query)
            throws BadRequestException, NotFoundException, MethodNotAllowedException, ForbiddenException, IOException {
        boolean known = path.equals(REPAIR) || path.equals(FLUSH) || path.equals(COMPACT) || path.equals(SNAPSHOT);
        if (!known) {
            throw new BadRequestException("unknown path " + path);
        }
        if (control == null && !path.equals(REPAIR)) {
            throw new NotFoundException("no " + path + " on this server"); // a bare server without admin control
        }
        authenticate(request);
        HttpMethod method = request.method();
        if (path.equals(REPAIR)) {
            if (method.equals(HttpMethod.POST)) {
                if (repair != null) {
                    repair.start(); // already running: the running one covers the request
                }
                return new Outcome.Started();
            }
            if (method.equals(HttpMethod.GET)) {
                String json = repair == null ? "{\"state\":\"idle\",\"note\":\"single node: nothing to repair\"}"
                        : repair.statusJson();
                return json(json);
            }
            throw new MethodNotAllowedException(method.name(), "GET, POST");
        }
        if (!method.equals(HttpMethod.POST)) {
            throw new MethodNotAllowedException(method.name(), "POST");
        }
        return switch (path) {
            case FLUSH -> json(control.flush());
            case COMPACT -> json(control.compact());
            default -> {
                String name = query.string("name");
                if (name == null) {
                    throw new BadRequestException("missing parameter 'name'");
                }
                try {
                    yield json(control.snapshot(name));
                } catch (IllegalArgumentException e) {
                    throw new BadRequestException(e.getMessage());
                }
            }
        };
    }

    private static Outcome json(String json) {
        return new Outcome.Body((json + "\n").getBytes(StandardCharsets.UTF_8), "application/json");
    }

    private void authenticate(Request request) throws ForbiddenException {
        if (signer == null) {
            return;
        }
        byte[] body = request.content().isReadable() ? ByteBufUtil.getBytes(request.content()) : EMPTY;
        String auth = request.header(RequestSigner.HEADER);
        if (!signer.verify(request.method().name(), request.uri(), body, auth, wallClockMs.getAsLong())) {
            throw new ForbiddenException(auth == null
                    ? "admin request without " + RequestSigner.HEADER + " (this node has a cluster secret: "
                            + "use ringbase admin --secret-file)"
                    : "admin request with an invalid or expired " + RequestSigner.HEADER);
        }
    }
}
