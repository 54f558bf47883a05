package io.ringbase.cluster.rpc;

import java.util.concurrent.CompletableFuture;

/**
 * What {@link InternalProtocol#METADATA} serves: this node's cluster metadata and, on a node of the metadata
 * group, changes submitted to the log. Bodies are records of docs/metadata-format.md; this package does not
 * decode them.
 */
public interface MetadataEndpoint {

    /** A node of a static cluster: no metadata log. */
    MetadataEndpoint NONE = new MetadataEndpoint() {
        @Override
        public byte[] current() {
            throw new IllegalStateException("this node's cluster has no metadata log (a static --cluster list)");
        }

        @Override
        public CompletableFuture<byte[]> submit(byte[] transformation) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("this node's cluster has no metadata log (a static --cluster list)"));
        }
    };

    /** A peer's request carried {@code epoch} ({@link InternalProtocol#EPOCH}): catch up if it is newer. */
    default void sawEpoch(long epoch) {}

    /**
     * The newest metadata this node knows, encoded.
     *
     * @throws IllegalStateException if the node has none to give (answered 503)
     */
    byte[] current();

    /**
     * Submits an encoded transformation to the log.
     *
     * @return the metadata right after it, encoded; fails with {@link IllegalArgumentException} (the
     *     one-line reason, answered 409) if the change is malformed or was rejected, and with
     *     {@link IllegalStateException} (answered 503) if this node cannot submit (not of the metadata
     *     group) or the log has no quorum
     */
    CompletableFuture<byte[]> submit(byte[] transformation);
}
