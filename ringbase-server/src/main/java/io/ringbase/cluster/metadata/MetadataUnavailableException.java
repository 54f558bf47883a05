package io.ringbase.cluster.metadata;

/**
 * The metadata group could not answer in time: no quorum (too few of its servers reachable), no leader
 * elected yet, or the service is closed. A change that failed this way may still be committed later; read
 * the metadata again before retrying it. Data requests never see this: they use the last metadata a node
 * knows.
 */
public final class MetadataUnavailableException extends RuntimeException {

    public MetadataUnavailableException(String message) {
        super(message);
    }

    public MetadataUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
