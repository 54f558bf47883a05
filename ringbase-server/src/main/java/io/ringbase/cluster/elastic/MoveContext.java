package io.ringbase.cluster.elastic;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.rpc.MetadataClient;
import io.ringbase.cluster.streaming.StreamOptions;
import io.ringbase.cluster.streaming.StreamPeer;
import io.ringbase.storage.StorageEngine;
import java.nio.file.Path;
import java.util.function.Function;

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

    /** This context with other streaming options. */
    public MoveContext withStreaming(StreamOptions options) {
        return new MoveContext(engine, clock, dataDir, options, sources, replicas, metadataClient, replicaTimeoutMs);
    }
}
