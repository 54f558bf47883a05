package io.ringbase.cluster.elastic;

import io.ringbase.cluster.Topology;
import org.jspecify.annotations.Nullable;

/**
 * Whether and how a node takes its membership from the cluster metadata log instead of its static
 * {@code --cluster} list.
 *
 * @param metadataPortOffset added to a founding node's HTTP port to give the port of its metadata (Raft)
 *                           server ({@code --metadata-port-offset}); 0 for a static cluster. Every founding
 *                           node must use the same offset.
 * @param joinUrl            {@code http://host:port} of a member to join through ({@code --join}), or null for
 *                           a founding node
 */
public record ElasticOptions(
        int metadataPortOffset, @Nullable String joinUrl) {

    /** A node of a static cluster: no metadata log. */
    public static final ElasticOptions STATIC = new ElasticOptions(0, null);

    /** @throws IllegalArgumentException for a negative or too large offset, or a malformed join URL */
    public ElasticOptions {
        if (metadataPortOffset < 0 || metadataPortOffset > 65534) {
            throw new IllegalArgumentException("--metadata-port-offset must be 0..65534, got " + metadataPortOffset);
        }
        if (joinUrl != null) {
            joinUrl = Topology.parseUrl(joinUrl).toString();
        }
    }

    /** Whether the node's membership comes from the metadata log. */
    public boolean isElastic() {
        return metadataPortOffset > 0 || joinUrl != null;
    }

    /** Whether the node joins an existing cluster rather than founding one. */
    public boolean joins() {
        return joinUrl != null;
    }
}
