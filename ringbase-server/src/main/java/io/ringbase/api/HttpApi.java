package io.ringbase.api;

import io.ringbase.auth.ClientTokens;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import io.ringbase.functions.FunctionEngine;
import io.ringbase.functions.FunctionLimits;
import io.ringbase.functions.Jobs;
import io.ringbase.kv.KeyValueService;
import io.ringbase.observe.RequestMetrics;
import io.ringbase.transport.ConnectionSniffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Everything a node serves over HTTP, assembled once: the public data API on the node's
 * {@link KeyValueService}, the health, readiness, metrics and status endpoints, the admin API, and the
 * routes other parts of the node add (the node-to-node API), in one {@link RouteTable} that dispatches each
 * request once. Immutable and thread-safe once built.
 *
 * <p>Metrics count requests under these endpoint labels, in this order: {@code entity}, {@code entities},
 * {@code functions}, {@code process}, then the added routes' labels in the order added, {@code admin}, {@code health}, {@code ready},
 * {@code metrics}, {@code status}, {@code ring}, {@code openapi} and {@code other}.
 */
public final class HttpApi {

    /** The endpoints clients call: the status page's request rate and p99 are theirs. */
    private static final List<String> CLIENT_ENDPOINTS = List.of("entity", "entities");

    private final RouteTable routes;
    private final EntityApi entities;
    private final int bodyOverheadBytes;
    private final Supplier<ClientTokens> tokens;

    private final @Nullable ConnectionSniffer sniffer;

    private HttpApi(
            RouteTable routes,
            EntityApi entities,
            int bodyOverheadBytes,
            @Nullable ConnectionSniffer sniffer,
            Supplier<ClientTokens> tokens) {
        this.sniffer = sniffer;
        this.tokens = tokens;
        this.routes = routes;
        this.entities = entities;
        this.bodyOverheadBytes = bodyOverheadBytes;
    }

    /**
     * Bytes an added route's request body may carry beyond the largest value (the node-to-node API's
     * replica write: a key and an entry header); 0 without added routes.
     */
    public int bodyOverheadBytes() {
        return bodyOverheadBytes;
    }

    /** Another protocol served on the same port, told apart by the first byte; {@code null}: HTTP only. */
    public @Nullable ConnectionSniffer sniffer() {
        return sniffer;
    }

    /** The route table. */
    public RouteTable routes() {
        return routes;
    }

    /**
     * Checks a request's client token for its route ({@link ClientAuth}); does nothing when the node has
     * no token file.
     *
     * @throws UnauthorizedException without a known token (401)
     * @throws ForbiddenException    with a token that does not allow the request (403)
     * @throws BadRequestException   if a prefix-limited token's request has a query that cannot be decoded
     */
    void authorize(RouteTable.Entry entry, io.ringbase.api.wire.Request request)
            throws UnauthorizedException, ForbiddenException, BadRequestException {
        ClientTokens t = tokens.get();
        if (t.enabled()) {
            ClientAuth.check(t, entry, request);
        }
    }

    /** The data API, for the inline path of point requests. */
    EntityApi entities() {
        return entities;
    }

    /** Request counters with this API's endpoint labels. */
    public RequestMetrics newRequestMetrics() {
        return new RequestMetrics(routes.endpoints(), routes.clientEndpoints());
    }

    /**
     * A builder of the API over {@code kv}.
     *
     * @param time         the wall clock of TTLs and signature ages
     * @param maxBodyBytes the largest value a PUT may carry, bytes
     */
    public static Builder builder(KeyValueService kv, TimeSource time, int maxBodyBytes) {
        return new Builder(kv, time, maxBodyBytes);
    }

    /** Collects the parts; defaults: no reports, no admin control, no repair, no secret, no client tokens. */
    public static final class Builder {
        private final KeyValueService kv;
        private final TimeSource time;
        private final int maxBodyBytes;
        private NodeReports reports = NodeReports.NONE;
        private AdminControl admin = AdminControl.NONE;
        private RepairControl repair = RepairControl.NONE;
        private MembershipControl membership = MembershipControl.NONE;
        private RequestSigner signer = RequestSigner.NONE;
        private Supplier<ClientTokens> tokens = () -> ClientTokens.NONE;
        private final List<Added> added = new ArrayList<>();
        private @Nullable ConnectionSniffer sniffer;
        private int bodyOverheadBytes;
        private @Nullable Jobs functions;
        private Supplier<@Nullable RingView> ring = () -> null;

        private record Added(String path, boolean prefix, String endpoint, Access access, Route route) {}

        private Builder(KeyValueService kv, TimeSource time, int maxBodyBytes) {
            this.kv = kv;
            this.time = time;
            this.maxBodyBytes = maxBodyBytes;
        }

        /** What {@code /metrics}, {@code /v0/status} and {@code /} serve. */
        public Builder reports(NodeReports reports) {
            this.reports = reports;
            return this;
        }

        /**
         * The placement {@code GET /v0/ring} serves, read per request (default: none, answered 404): what
         * clients route requests to a key's replicas by.
         */
        public Builder ring(Supplier<RingView> placement) {
            this.ring = placement;
            return this;
        }

        /** Flush, compaction and snapshots under {@code /v0/admin/}. */
        public Builder admin(AdminControl admin) {
            this.admin = admin;
            return this;
        }

        /** The anti-entropy repair behind {@code /v0/admin/repair}. */
        public Builder repair(RepairControl repair) {
            this.repair = repair;
            return this;
        }

        /** Decommission and cleanup behind {@code /v0/admin/decommission} and {@code /v0/admin/cleanup}. */
        public Builder membership(MembershipControl membership) {
            this.membership = membership;
            return this;
        }

        /**
         * The server-side functions behind {@code /v0/functions/} and {@code /v0/process} (default: a set with
         * the default limits and one pool thread per core, which the server never closes: its threads are
         * daemons).
         */
        public Builder functions(Jobs jobs) {
            this.functions = jobs;
            return this;
        }

        /** Checks admin requests' signatures ({@code --cluster-secret-file}). */
        public Builder signer(RequestSigner signer) {
            this.signer = signer;
            return this;
        }

        /**
         * The client tokens every request is checked against ({@code --token-file}), read per request so
         * a reload applies at once; default {@link ClientTokens#NONE} (the API is open).
         */
        public Builder tokens(Supplier<ClientTokens> tokens) {
            this.tokens = tokens;
            return this;
        }

        /** Another protocol served on the same port, told apart by its first byte. */
        public Builder sniffer(ConnectionSniffer other) {
            this.sniffer = other;
            return this;
        }

        /** Room the added routes' request bodies need beyond the largest value, bytes (default 0). */
        public Builder bodyOverheadBytes(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("body overhead must not be negative, got " + bytes);
            }
            this.bodyOverheadBytes = bytes;
            return this;
        }

        /**
         * Adds a route for exactly {@code path}, counted as {@code endpoint}, after the data API's, checked
         * as {@code access} says when the node has client tokens.
         */
        public Builder path(String path, String endpoint, Access access, Route route) {
            added.add(new Added(path, false, endpoint, access, route));
            return this;
        }

        /** Adds a route for every path under {@code prefix}, as {@link #path}. */
        public Builder prefix(String prefix, String endpoint, Access access, Route route) {
            added.add(new Added(prefix, true, endpoint, access, route));
            return this;
        }

        /**
         * Request counters with the endpoint labels of the API this builder makes, in its order; the same
         * as the built API's {@link HttpApi#newRequestMetrics()}.
         */
        public RequestMetrics newRequestMetrics() {
            List<String> labels =
                    new ArrayList<>(List.of("entity", "entities", "functions", "process", "internal_process_share"));
            for (Added a : added) {
                if (!labels.contains(a.endpoint())) {
                    labels.add(a.endpoint());
                }
            }
            labels.addAll(
                    List.of("admin", "health", "ready", "metrics", "status", "ring", "openapi", RouteTable.OTHER));
            return new RequestMetrics(labels, CLIENT_ENDPOINTS);
        }

        /** The API. */
        public HttpApi build() {
            EntityApi entities = new EntityApi(kv, time, maxBodyBytes);
            OpsApi ops = new OpsApi(kv, reports);
            RouteTable.Builder table = RouteTable.builder()
                    .path(EntityApi.ENTITY, "entity", Access.KEY, entities.points())
                    .path(EntityApi.ENTITIES, "entities", Access.RANGE, entities.ranges())
                    .clientEndpoint(CLIENT_ENDPOINTS.get(0))
                    .clientEndpoint(CLIENT_ENDPOINTS.get(1));
            Jobs jobs = functions != null
                    ? functions
                    : new Jobs(
                            kv,
                            time,
                            FunctionLimits.DEFAULTS,
                            FunctionEngine.DEFAULT,
                            Runtime.getRuntime().availableProcessors());
            FunctionsApi fns = new FunctionsApi(kv, jobs, signer, time);
            // a function reads and may rewrite any key of its range: no key prefix can bound it
            table.prefix(FunctionsApi.FUNCTIONS, "functions", Access.ADMIN, fns.functions())
                    .path(FunctionsApi.PROCESS, "process", Access.ADMIN, fns.process())
                    .prefix(FunctionsApi.PROCESS_JOB, "process", Access.ADMIN, fns.job())
                    .path(FunctionsApi.PROCESS_SHARE, "internal_process_share", Access.NODE, fns.share());
            for (Added a : added) {
                if (a.prefix()) {
                    table.prefix(a.path(), a.endpoint(), a.access(), a.route());
                } else {
                    table.path(a.path(), a.endpoint(), a.access(), a.route());
                }
            }
            table.prefix(AdminApi.PREFIX, "admin", Access.ADMIN, new AdminApi(repair, membership, admin, signer, time))
                    .path(OpsApi.HEALTH, "health", Access.OPEN, ops.health)
                    .path(OpsApi.READY, "ready", Access.OPEN, ops.ready)
                    .path(OpsApi.METRICS, "metrics", Access.METRICS, ops.metrics)
                    .path(OpsApi.STATUS, "status", Access.METRICS, ops.status)
                    .path(OpsApi.PAGE, "status", Access.METRICS, ops.page)
                    .path(RingApi.RING, "ring", Access.READ, new RingApi(ring))
                    .path(OpsApi.OPENAPI, "openapi", Access.OPEN, ops.openapi);
            return new HttpApi(table.build(), entities, bodyOverheadBytes, sniffer, tokens);
        }
    }
}
