package io.ringbase.cluster.elastic;

import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Transformation;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A node's view of the cluster metadata log: the member of the metadata group reads its own replica of the
 * log ({@link RaftMetadataLog}), a node outside it follows a member's ({@link FollowedMetadataLog}).
 */
public interface MetadataLog extends AutoCloseable {

    /** The newest metadata this node knows; never blocks, never waits for a quorum. */
    ClusterMetadata current();

    /**
     * Submits a change.
     *
     * @return the metadata right after it; fails with {@link IllegalArgumentException} (the one-line reason)
     *     if the log rejected it, with {@link IllegalStateException} if no member could commit it
     */
    CompletableFuture<ClusterMetadata> submit(Transformation change);

    /** Calls {@code listener} with every newer metadata this node learns, in epoch order; it must not block. */
    void addListener(Consumer<ClusterMetadata> listener);

    /** Learns of {@code epoch} from a peer: fetches the log's newest metadata soon if it is newer than ours. */
    void sawEpoch(long epoch);

    /**
     * The voters of the metadata group's Raft configuration as this node's own server has it (node id to
     * metadata address); empty on a node that runs no metadata server.
     *
     * @throws IOException if the server has closed
     */
    default Map<Integer, String> configuredVoters() throws IOException {
        return Map.of();
    }

    @Override
    void close() throws IOException;
}
