package io.ringbase.cluster.metadata;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One node as the cluster metadata knows it. Construction throws {@link IllegalArgumentException} for an id
 * or token below 1, a negative {@code replaces}, or a malformed URL or address.
 *
 * @param id              the node id the log allocated, at least 1, never reused
 * @param url             the node's HTTP address, {@code http://host:port}
 * @param metadataAddress {@code host:port} of the node's metadata (Ratis) server
 * @param state           where the node is in its life cycle
 * @param token           the placement identity: the node's own id, or for a replacement the token of the
 *                        node it replaced, so that it takes over exactly that node's share of the keys (as a
 *                        Cassandra replacement takes over the tokens of the node it replaces)
 * @param replaces        the id of the node this one replaces ({@link MemberState#REPLACING}) or replaced; 0 for
 *                        none
 */
public record Member(int id, String url, String metadataAddress, MemberState state, int token, int replaces) {

    /** Longest URL or metadata address, in UTF-8 bytes. */
    public static final int MAX_ADDRESS_BYTES = 1024;

    public Member {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(metadataAddress, "metadataAddress");
        Objects.requireNonNull(state, "state");
        if (id < 1) {
            throw new IllegalArgumentException("node id must be >= 1, got " + id);
        }
        if (token < 1) {
            throw new IllegalArgumentException("token must be >= 1, got " + token);
        }
        if (replaces < 0) {
            throw new IllegalArgumentException("replaces must be >= 0, got " + replaces);
        }
        checkUrl(url);
        checkMetadataAddress(metadataAddress);
    }

    /** This member in another state; everything else unchanged. */
    public Member withState(MemberState newState) {
        return new Member(id, url, metadataAddress, newState, token, replaces);
    }

    /**
     * Checks a node URL: {@code http://host:port}, nothing after the port.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkUrl(String url) {
        checkLength("url", url);
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("url is not a URI: " + url, e);
        }
        if (!"http".equals(uri.getScheme())
                || uri.getHost() == null
                || uri.getPort() < 1
                || uri.getPort() > 65535
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())
                || uri.getRawQuery() != null
                || uri.getRawFragment() != null
                || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("url must be http://host:port, got " + url);
        }
    }

    /**
     * Checks a metadata address: {@code host:port} (an IPv6 literal in brackets).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkMetadataAddress(String address) {
        checkLength("metadata address", address);
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("metadata address must be host:port, got " + address);
        }
        String host = address.substring(0, colon);
        if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("metadata address must be host:port, got " + address);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("metadata address has no numeric port: " + address, e);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("metadata address port must be 1..65535, got " + address);
        }
    }

    private static void checkLength(String what, String value) {
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_ADDRESS_BYTES) {
            throw new IllegalArgumentException(
                    what + " must be 1.." + MAX_ADDRESS_BYTES + " bytes of UTF-8, got " + bytes);
        }
    }
}
