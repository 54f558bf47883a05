package io.ringbase.cluster;

import java.net.URI;
import java.util.Objects;

/**
 * One node of the static topology: its position in the {@code --cluster} list (the same on every node)
 * and the address its HTTP API listens on.
 *
 * @param index 0-based position in the cluster list
 * @param host  host name or IP literal, as written in the list
 * @param port  TCP port, 1..65535
 */
public record NodeId(int index, String host, int port) {

    public NodeId {
        Objects.requireNonNull(host, "host");
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, got " + index);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
    }

    /** {@code http://host:port}, the form used in {@code --cluster}. */
    public URI uri() {
        return URI.create(toString());
    }

    @Override
    public String toString() {
        return "http://" + host + ":" + port;
    }
}
