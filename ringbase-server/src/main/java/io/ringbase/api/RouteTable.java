package io.ringbase.api;

import io.ringbase.api.wire.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which {@link Route} serves a request, decided once per request from the target's bytes, before any
 * string is made of it: exact paths ({@code /v0/entity}) and path prefixes ({@code /internal/v0/}), in the
 * order they were added (so add the busiest first, and a prefix after the exact paths it contains). Each
 * entry also names the endpoint its requests are counted under in metrics. A target no entry matches goes
 * to a route that answers 400 ("unknown path"), counted as endpoint {@value #OTHER}.
 *
 * <p>Built once by the node's assembly with {@link #builder()}, then immutable and thread-safe.
 */
public final class RouteTable {

    /** The endpoint label of requests no entry matches (and of malformed requests). */
    public static final String OTHER = "other";

    /**
     * One matched entry: its route, its index in {@link #endpoints()}, its path (ASCII), whether it is a
     * prefix, and what a request must show when the node has client tokens.
     */
    public record Entry(Route route, int endpoint, byte[] path, boolean prefix, Access access) {

        /** The path, or the prefix, as a string. */
        public String pathString() {
            return new String(path, StandardCharsets.US_ASCII);
        }

        /** Whether this entry serves {@code target} (origin form, with or without a query). */
        boolean matches(byte[] target) {
            if (target.length < path.length || !Arrays.equals(target, 0, path.length, path, 0, path.length)) {
                return false;
            }
            return prefix || target.length == path.length || target[path.length] == '?';
        }
    }

    private final Entry[] entries;
    private final Entry unknown;
    private final List<String> endpoints;
    private final List<String> clientEndpoints;

    private RouteTable(List<Entry> entries, List<String> endpoints, List<String> clientEndpoints) {
        this.entries = entries.toArray(Entry[]::new);
        this.endpoints = List.copyOf(endpoints);
        this.clientEndpoints = List.copyOf(clientEndpoints);
        this.unknown = new Entry(UNKNOWN, this.endpoints.indexOf(OTHER), new byte[0], true, Access.TOKEN);
    }

    /** The entry serving {@code request}; never {@code null} (an unknown path gets the 400 route). */
    public Entry resolve(Request request) {
        byte[] target = request.target();
        for (Entry e : entries) {
            if (e.matches(target)) {
                return e;
            }
        }
        return unknown;
    }

    /** Every entry, in match order (not the one of unknown paths). */
    public List<Entry> entries() {
        return List.of(entries);
    }

    /** The entry of paths that are no part of the API (400). */
    public Entry unknown() {
        return unknown;
    }

    /** The endpoint labels of metrics, by index; {@value #OTHER} among them. */
    public List<String> endpoints() {
        return endpoints;
    }

    /** The endpoints clients call (their rate and latency are the status page's). */
    public List<String> clientEndpoints() {
        return clientEndpoints;
    }

    /** The index of {@value #OTHER} in {@link #endpoints()}. */
    public int otherEndpoint() {
        return unknown.endpoint();
    }

    /** A table with no entries yet. */
    public static Builder builder() {
        return new Builder();
    }

    /** Adds entries in match order. Not thread-safe; {@link #build()} once. */
    public static final class Builder {
        private final List<Entry> entries = new ArrayList<>();
        private final List<String> endpoints = new ArrayList<>();
        private final List<String> clientEndpoints = new ArrayList<>();

        private Builder() {}

        /**
         * Serves exactly {@code path} (any query) with {@code route}, counted as {@code endpoint}, checked
         * as {@code access} says when the node has client tokens.
         */
        public Builder path(String path, String endpoint, Access access, Route route) {
            return add(path, endpoint, route, false, access);
        }

        /** Serves every path that starts with {@code prefix} with {@code route}, as {@link #path}. */
        public Builder prefix(String prefix, String endpoint, Access access, Route route) {
            return add(prefix, endpoint, route, true, access);
        }

        /** Marks {@code endpoint} as one clients call: the status page's request rate and p99 are theirs. */
        public Builder clientEndpoint(String endpoint) {
            clientEndpoints.add(endpoint);
            return this;
        }

        private Builder add(String path, String endpoint, Route route, boolean prefix, Access access) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("a path starts with '/': " + path);
            }
            int index = endpoints.indexOf(endpoint);
            if (index < 0) {
                index = endpoints.size();
                endpoints.add(endpoint);
            }
            entries.add(new Entry(route, index, path.getBytes(StandardCharsets.US_ASCII), prefix, access));
            return this;
        }

        /** The table. */
        public RouteTable build() {
            if (!endpoints.contains(OTHER)) {
                endpoints.add(OTHER);
            }
            return new RouteTable(entries, endpoints, clientEndpoints);
        }
    }

    /** Answers every request with 400: its path is not part of the API. */
    private static final Route UNKNOWN = (request, path, query, mayWait) -> {
        throw new BadRequestException("unknown path " + (path.length() <= 64 ? path : path.substring(0, 64) + "..."));
    };
}
