package io.ringbase.cluster.elastic;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.rpc.MetadataClient;
import io.ringbase.cluster.streaming.StreamCursor;
import io.ringbase.cluster.streaming.StreamFailedException;
import io.ringbase.cluster.streaming.StreamOptions;
import io.ringbase.cluster.streaming.StreamPeer;
import io.ringbase.cluster.streaming.StreamPlan;
import io.ringbase.cluster.streaming.StreamProgress;
import io.ringbase.cluster.streaming.StreamSession;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;
import org.slf4j.LoggerFactory;

/**
 * What a membership change this node drives needs of the node: its engine and clock (streamed entries are
 * observed, then applied), its data directory (stream cursors), streaming's options, the other nodes as
 * stream sources and as replicas, and a client that asks a node which epoch it is at.
 *
 * @param replicaTimeoutMs how long a coordinator waits for a replica: a request that started before a node
 *                         learned the new epoch has ended this long after it did, ms
 */
public record MoveContext(
        StorageEngine engine,
        HybridLogicalClock clock,
        Path dataDir,
        StreamOptions streaming,
        Function<NodeId, StreamPeer> sources,
        Function<NodeId, Replica> replicas,
        MetadataClient metadataClient,
        long replicaTimeoutMs) {

    /**
     * Streams {@code plan} into this node's engine from the plan's source, resuming from its cursor: one
     * {@link StreamSession}, run on the calling thread.
     *
     * @throws StreamFailedException if the source keeps failing or refuses the plan
     * @throws IOException           if the engine or the cursor file fail
     */
    public StreamProgress stream(StreamPlan plan) throws IOException, InterruptedException, StreamFailedException {
        return new StreamSession(plan, sources.apply(plan.source()), engine, clock, dataDir, streaming).run();
    }

    /** Deletes the stream cursors of a finished change ({@link StreamCursor#deleteAll}); logs a failure. */
    void forgetCursors() {
        try {
            StreamCursor.deleteAll(dataDir);
        } catch (IOException e) {
            LoggerFactory.getLogger(MoveContext.class)
                    .warn("could not delete the finished change's stream cursors under {}: {}", dataDir, e.toString());
        }
    }

    /** This context with other streaming options. */
    public MoveContext withStreaming(StreamOptions options) {
        return new MoveContext(engine, clock, dataDir, options, sources, replicas, metadataClient, replicaTimeoutMs);
    }
}
