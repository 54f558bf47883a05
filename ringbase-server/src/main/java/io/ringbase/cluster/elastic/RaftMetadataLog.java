package io.ringbase.cluster.elastic;

import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.MetadataService;
import io.ringbase.cluster.metadata.RejectedChangeException;
import io.ringbase.cluster.metadata.Transformation;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/** The log of a member of the metadata group: its own Raft replica ({@link MetadataService}). */
final class RaftMetadataLog implements MetadataLog {

    private final MetadataService service;

    RaftMetadataLog(MetadataService service) {
        this.service = service;
    }

    @Override
    public ClusterMetadata current() {
        return service.current();
    }

    @Override
    public CompletableFuture<ClusterMetadata> submit(Transformation change) {
        return service.submit(change).exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            return CompletableFuture.failedFuture(
                    cause instanceof RejectedChangeException
                            ? new IllegalArgumentException(cause.getMessage(), cause)
                            : new IllegalStateException(cause.getMessage(), cause));
        });
    }

    @Override
    public void addListener(Consumer<ClusterMetadata> listener) {
        service.addListener(listener);
    }

    @Override
    public void sawEpoch(long epoch) {
        // the Raft replica applies every committed entry by itself; nothing to fetch
    }

    @Override
    public Map<Integer, String> configuredVoters() throws IOException {
        return service.configuredVoters();
    }

    @Override
    public void close() throws IOException {
        service.close();
    }
}
