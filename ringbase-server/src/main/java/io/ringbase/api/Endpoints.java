package io.ringbase.api;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.observe.RequestMetrics;
import java.util.List;

/**
 * The endpoint and method labels of {@link RequestMetrics}: which API a request went to, by its path,
 * without allocating. Indexes are positions in {@link #NAMES}.
 */
final class Endpoints {

    /** Endpoint labels, by index. */
    static final List<String> NAMES = List.of("entity", "entities", "internal_entry", "internal_batch",
            "internal_other", "admin", "health", "ready", "metrics", "status", "other");
    /** The endpoints clients call: the status page's request rate and p99 are theirs. */
    static final List<String> CLIENT = List.of("entity", "entities");

    static final int ENTITY = 0;
    static final int ENTITIES = 1;
    static final int INTERNAL_ENTRY = 2;
    static final int INTERNAL_BATCH = 3;
    static final int INTERNAL_OTHER = 4;
    static final int ADMIN = 5;
    static final int HEALTH = 6;
    static final int READY = 7;
    static final int METRICS = 8;
    static final int STATUS = 9;
    static final int OTHER = 10;

    private Endpoints() {
    }

    /** The endpoint of the request target {@code uri} (origin form, with or without a query). */
    static int of(String uri) {
        if (isPath(uri, EntityApi.Route.ENTITY.path)) {
            return ENTITY;
        }
        if (isPath(uri, EntityApi.Route.ENTITIES.path)) {
            return ENTITIES;
        }
        if (uri.startsWith(InternalProtocol.PREFIX)) {
            return isPath(uri, InternalProtocol.ENTRY) ? INTERNAL_ENTRY
                    : isPath(uri, InternalProtocol.BATCH) ? INTERNAL_BATCH : INTERNAL_OTHER;
        }
        if (uri.startsWith("/v0/admin/")) {
            return ADMIN;
        }
        if (isPath(uri, OpsApi.HEALTH)) {
            return HEALTH;
        }
        if (isPath(uri, OpsApi.READY)) {
            return READY;
        }
        if (isPath(uri, OpsApi.METRICS)) {
            return METRICS;
        }
        if (isPath(uri, OpsApi.STATUS) || isPath(uri, OpsApi.PAGE)) {
            return STATUS;
        }
        return OTHER;
    }

    /** The method's index in {@link RequestMetrics#METHODS}. */
    static int method(HttpMethod method) {
        if (method == HttpMethod.GET) {
            return 0;
        }
        if (method == HttpMethod.PUT) {
            return 1;
        }
        if (method == HttpMethod.DELETE) {
            return 2;
        }
        if (method == HttpMethod.POST) {
            return 3;
        }
        return RequestMetrics.OTHER_METHOD;
    }

    private static boolean isPath(String uri, String path) {
        return uri.startsWith(path) && (uri.length() == path.length() || uri.charAt(path.length()) == '?');
    }
}
