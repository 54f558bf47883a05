package io.ringbase.api;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.api.wire.Request;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

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
 * ({@link RequestSigner#HEADER}, {@link RequestSigner}), else 403: these requests change the node. A node
 * alone has no repair to run ({@link RepairControl#NONE}). Stateless and thread-safe; runs on workers.
 */
final class AdminApi implements Route {

    static final String PREFIX = "/v0/admin/";
    static final String REPAIR = PREFIX + "repair";
    static final String FLUSH = PREFIX + "flush";
    static final String COMPACT = PREFIX + "compact";
    static final String SNAPSHOT = PREFIX + "snapshot";
    static final String DECOMMISSION = PREFIX + "decommission";
    static final String CLEANUP = PREFIX + "cleanup";
    static final String REMOVE = PREFIX + "remove";

    private static final byte[] EMPTY = new byte[0];

    private final RepairControl repair;
    private final MembershipControl membership;
    private final AdminControl control;
    private final RequestSigner signer;
    private final TimeSource time;

    /**
     * @param repair  the repair service ({@link RepairControl#NONE} on a node alone)
     * @param membership decommission and cleanup ({@link MembershipControl#NONE} for a static cluster)
     * @param control flush, compaction and snapshots ({@link AdminControl#NONE} for a bare server)
     * @param signer  checks every request's signature ({@link RequestSigner#NONE} when the node has no secret)
     * @param time    the wall clock a signature's age is measured on
     */
    AdminApi(
            RepairControl repair,
            MembershipControl membership,
            AdminControl control,
            RequestSigner signer,
            TimeSource time) {
        this.repair = repair;
        this.membership = membership;
        this.control = control;
        this.signer = signer;
        this.time = time;
    }

    @Override
    public Outcome handle(Request request, String path, QueryString query, boolean mayWait)
            throws BadRequestException, NotFoundException, MethodNotAllowedException, ForbiddenException, IOException {
        boolean known = path.equals(REPAIR)
                || path.equals(FLUSH)
                || path.equals(COMPACT)
                || path.equals(SNAPSHOT)
                || path.equals(DECOMMISSION)
                || path.equals(CLEANUP)
                || path.equals(REMOVE);
        if (!known) {
            throw new BadRequestException("unknown path " + path);
        }
        authenticate(request);
        HttpMethod method = request.method();
        if (path.equals(REPAIR)) {
            if (method.equals(HttpMethod.POST)) {
                repair.start(); // already running: the running one covers the request
                return new Outcome.Started();
            }
            if (method.equals(HttpMethod.GET)) {
                return json(repair.statusJson());
            }
            throw new MethodNotAllowedException(method.name(), "GET, POST");
        }
        if (path.equals(DECOMMISSION) && method.equals(HttpMethod.GET)) {
            return json(membership.changeJson());
        }
        if (!method.equals(HttpMethod.POST)) {
            throw new MethodNotAllowedException(method.name(), path.equals(DECOMMISSION) ? "GET, POST" : "POST");
        }
        if (path.equals(DECOMMISSION) || path.equals(CLEANUP) || path.equals(REMOVE)) {
            try {
                return switch (path) {
                    case DECOMMISSION -> json(membership.decommission());
                    case CLEANUP -> json(membership.cleanup());
                    default -> json(membership.remove(nodeParam(query)));
                };
            } catch (IllegalStateException e) {
                return new Outcome.Reply(
                        409,
                        "text/plain; charset=utf-8",
                        (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8),
                        java.util.Map.of());
            }
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

    private static int nodeParam(QueryString query) throws BadRequestException {
        String node = query.string("node");
        try {
            int id = Integer.parseInt(String.valueOf(node));
            if (id >= 1) {
                return id;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new BadRequestException(
                "parameter 'node' must be a node id of at least 1 (ringbase admin ring), got '" + node + "'");
    }

    private static Outcome json(String json) {
        return new Outcome.Body((json + "\n").getBytes(StandardCharsets.UTF_8), "application/json");
    }

    private void authenticate(Request request) throws ForbiddenException {
        if (!signer.signs()) {
            return; // no secret: nothing to check, and no body to copy
        }
        byte[] body = request.content().isReadable() ? ByteBufUtil.getBytes(request.content()) : EMPTY;
        String auth = request.header(RequestSigner.HEADER);
        if (!signer.verify(request.method().name(), request.uri(), body, auth, time.currentTimeMillis())) {
            throw new ForbiddenException(
                    auth == null
                            ? "admin request without " + RequestSigner.HEADER + " (this node has a cluster secret: "
                                    + "use ringbase admin --secret-file)"
                            : "admin request with an invalid or expired " + RequestSigner.HEADER);
        }
    }
}
