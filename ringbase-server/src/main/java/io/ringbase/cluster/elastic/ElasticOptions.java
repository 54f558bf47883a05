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
 * @param replaces           the node id a joining node replaces ({@code --replace}: a dead node, or the node
 *                           whose data directory this one lost), 0 for none
 * @param streamBytesPerSecond the rate limit of the entries this node receives or sends when it streams
 *                           ({@code --stream-rate}), bytes/s; 0 for unlimited
 */
public record ElasticOptions(
        int metadataPortOffset, @Nullable String joinUrl, int replaces, long streamBytesPerSecond) {

    /**
     * The default streaming rate limit, bytes/s (64 MiB/s): above the 50 MB/s a join should reach, below what
     * would take the disk and the CPU from client requests on a small machine.
     */
    public static final long DEFAULT_STREAM_BYTES_PER_SECOND = 64L << 20;

    /** A node of a static cluster: no metadata log. */
    public static final ElasticOptions STATIC = new ElasticOptions(0, null, 0, DEFAULT_STREAM_BYTES_PER_SECOND);

    /** A founding node ({@code joinUrl} null) or a node that joins, replacing none. */
    public ElasticOptions(int metadataPortOffset, @Nullable String joinUrl) {
        this(metadataPortOffset, joinUrl, 0, DEFAULT_STREAM_BYTES_PER_SECOND);
    }

    /** @throws IllegalArgumentException for a negative or too large offset, or a malformed join URL */
    public ElasticOptions {
        if (metadataPortOffset < 0 || metadataPortOffset > 65534) {
            throw new IllegalArgumentException("--metadata-port-offset must be 0..65534, got " + metadataPortOffset);
        }
        if (joinUrl != null) {
            joinUrl = Topology.parseUrl(joinUrl).toString();
        }
        if (streamBytesPerSecond < 0) {
            throw new IllegalArgumentException(
                    "--stream-rate must be >= 0 (0: unlimited), got " + streamBytesPerSecond);
        }
        if (replaces < 0 || (replaces > 0 && joinUrl == null)) {
            throw new IllegalArgumentException("--replace needs --join and a node id of at least 1, got " + replaces);
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
