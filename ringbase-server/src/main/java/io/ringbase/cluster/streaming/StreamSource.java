package io.ringbase.cluster.streaming;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.util.Objects;

/**
 * The sending side of streaming: pages of this node's entries that a {@link StreamPlan} wants, in key
 * order, tombstones and expired entries included (a bootstrap must carry deletes, as repair does). The
 * internal HTTP handler answers {@code POST /internal/v0/stream} with it. Stateless and thread-safe.
 */
public final class StreamSource {

    private final StorageEngine engine;
    private final NodeId self;

    /**
     * @param engine the local engine
     * @param self   this node; a plan must name it (its URL) as the source
     */
    public StreamSource(StorageEngine engine, NodeId self) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.self = Objects.requireNonNull(self, "self");
    }

    /**
     * One page of the entries {@code plan} wants, with keys {@code >= startKey}: one pass over the engine
     * from {@code startKey}.
     *
     * @param startKey inclusive lower bound: empty for the first page, then the previous page's
     *                 {@link EntryPage#next()}
     * @param maxBytes the page ends after the entry that takes its encoded size ({@link EntryFormat}) to
     *                 this many bytes or more, so it holds at least one entry if any is left; its
     *                 {@code next} is then the last key's {@link EntryPage#successor}, and a following
     *                 page may turn out empty
     * @throws IllegalArgumentException if the plan's source is not this node (by URL) or {@code maxBytes < 1}
     * @throws IOException              if the engine cannot be read
     */
    public EntryPage entries(StreamPlan plan, byte[] startKey, int maxBytes) throws IOException {
        if (!plan.source().toString().equals(self.toString())) {
            throw new IllegalArgumentException("stream plan names source " + plan.source() + ", this node is " + self);
        }
        return EntryPage.scan(engine, startKey, maxBytes, plan::wants);
    }
}
