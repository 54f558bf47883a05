package io.ringbase.api;

/**
 * What a request to a {@link RouteTable} entry must show when the node has client tokens
 * ({@code --token-file}); without a token file every entry is open. {@link ClientAuth} applies it.
 */
public enum Access {
    /** No token: health and readiness probes, which orchestrators call without credentials. */
    OPEN,
    /** No token: the node-to-node API, which has its own authentication (the cluster secret's HMAC). */
    NODE,
    /** A token with {@code read} (GET, HEAD) or {@code write} (other methods) whose prefix covers {@code id}. */
    KEY,
    /** A token with {@code read} whose prefix covers {@code [start, end)}. */
    RANGE,
    /** A token with {@code read}, whatever its prefix: reads that show no key (the placement, {@code /v0/ring}). */
    READ,
    /** A token with {@code metrics} or {@code admin}: metrics, status and the status page. */
    METRICS,
    /** A token with {@code admin}: the admin API. */
    ADMIN,
    /** Any valid token: paths that are no part of the API (answered 400 once the token is checked). */
    TOKEN
}
