package io.ringbase.cli;

import io.ringbase.cluster.elastic.ElasticOptions;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The elastic-membership flags of {@code serve}: the metadata log's port offset, the cluster to join, the
 * node to replace and the streaming rate, parsed into {@link ElasticOptions} (docs/operations.md, "An
 * elastic cluster").
 */
final class ElasticFlags {

    @Option(
            names = "--metadata-port-offset",
            defaultValue = "0",
            paramLabel = "N",
            description = "Take the membership from the cluster metadata log instead of the static list: each node "
                    + "of --cluster runs a metadata (Raft) server at its HTTP port + N, the same N on every node (mutual "
                    + "TLS with https:// URLs), and nodes can then join and be decommissioned while the cluster serves; 0 keeps the static list "
                    + "(default: 0).")
    int metadataPortOffset;

    @Option(
            names = "--join",
            paramLabel = "URL",
            description =
                    "Join the cluster of the node at URL (started with --metadata-port-offset): this node, "
                            + "--self, takes its share of the keys and streams them before it answers reads. Needs --self "
                            + "and an empty data directory the first time; without it the node founds or is static (default: none).")
    @Nullable
    String join;

    @Option(
            names = "--replace",
            defaultValue = "0",
            paramLabel = "NODE_ID",
            description =
                    "With --join: take the place of node NODE_ID (dead, or this node before its data directory "
                            + "was lost), as shown by ringbase admin ring. The new node streams that node's keys from their "
                            + "other replicas before it answers reads; the replaced node then leaves; 0 replaces none (default: 0).")
    int replace;

    @Option(
            names = "--stream-rate",
            defaultValue = "64m",
            paramLabel = "SIZE",
            description = "Most bytes of entries per second this node streams when keys move (a join, replacement,"
                    + " decommission or rebuild), per second; 0 for no limit (default: ${DEFAULT-VALUE}).")
    String streamRate;

    /**
     * The options of the flags.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong
     */
    ElasticOptions options() {
        return new ElasticOptions(metadataPortOffset, join, replace, streamRateBytes());
    }

    /** {@code --stream-rate} in bytes/s; 0 for no limit. */
    private long streamRateBytes() {
        try {
            return ByteSize.parseOrZero(streamRate);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--stream-rate must be a size such as 64m, or 0 for no limit: " + e.getMessage(), e);
        }
    }
}
