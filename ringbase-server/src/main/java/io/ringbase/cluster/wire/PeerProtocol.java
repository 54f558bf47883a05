package io.ringbase.cluster.wire;

import java.util.Locale;

/**
 * Which protocol a node's calls to its replicas use ({@code --internal-protocol}). A node accepts both
 * either way, so nodes of either choice, and of the release before v2, work together.
 */
public enum PeerProtocol {
    /** The binary protocol where the peer speaks it, HTTP otherwise (docs/internal-protocol-v2.md). */
    V2,
    /** HTTP/1.1 to the internal API only (docs/http-api.md). */
    HTTP;

    /** The default: {@link #V2}. */
    public static final PeerProtocol DEFAULT = V2;

    /**
     * The choice named {@code s} ({@code v2} or {@code http}, any case).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static PeerProtocol parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "v2" -> V2;
            case "http" -> HTTP;
            default -> throw new IllegalArgumentException("internal protocol must be v2 or http, got '" + s + "'");
        };
    }
}
