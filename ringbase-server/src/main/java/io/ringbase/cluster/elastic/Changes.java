package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MetadataCodec;
import io.ringbase.cluster.metadata.Transformation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps every membership change shares: committing a transformation, and waiting until every live node
 * has applied an epoch (CEP-21's "every node has seen the mid step" before data moves) and every request
 * started under an older epoch has ended.
 */
final class Changes {

    private static final Logger log = LoggerFactory.getLogger(Changes.class);

    /** How long a change waits for one node to reach an epoch before going on without it, ms. */
    static final long EPOCH_WAIT_MS = 30_000;

    /** How often the nodes' epochs are asked while waiting, ms. */
    static final long EPOCH_POLL_MS = 100;

    private Changes() {}

    /**
     * Commits {@code change}, retrying while no quorum takes it, for up to {@code attempts} tries.
     *
     * @throws IllegalArgumentException if the log rejects it
     * @throws IOException              if it cannot be committed
     */
    static ClusterMetadata commit(MetadataLog metadataLog, Transformation change, int attempts)
            throws IOException, InterruptedException {
        IOException last = null;
        for (int i = 0; i < attempts; i++) {
            try {
                return metadataLog.submit(change).get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IllegalArgumentException rejected) {
                    throw rejected;
                }
                last = new IOException(
                        "committing " + change + ": " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                last = new IOException("committing " + change + " took over 60 s", e);
            }
            log.warn("{}; retrying", last.getMessage());
            TimeUnit.MILLISECONDS.sleep(500L * (i + 1));
        }
        throw last == null ? new IOException("no attempt to commit " + change) : last;
    }

    /**
     * Waits until every live member other than {@code self} answers with {@code epoch} or later (a node that
     * does not answer within {@link #EPOCH_WAIT_MS} is logged and passed over: it learns the epoch before it
     * serves again), then for {@code graceMs} more, so requests coordinated under the older epoch have ended.
     */
    static void awaitEveryoneAt(ClusterMetadata metadata, NodeId self, MoveContext context, long graceMs)
            throws InterruptedException {
        long epoch = metadata.epoch();
        List<String> waiting = new ArrayList<>();
        for (Member m : metadata.members().values()) {
            if (m.state().isLive() && !m.url().equals(self.toString())) {
                waiting.add(m.url());
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EPOCH_WAIT_MS);
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            waiting.removeIf(url -> epochOf(context, url) >= epoch);
            if (!waiting.isEmpty()) {
                TimeUnit.MILLISECONDS.sleep(EPOCH_POLL_MS);
            }
        }
        if (!waiting.isEmpty()) {
            log.warn("{} did not reach epoch {} within {} ms; going on without them", waiting, epoch, EPOCH_WAIT_MS);
        }
        TimeUnit.MILLISECONDS.sleep(graceMs);
    }

    /** The epoch the node at {@code url} is at, or -1 if it does not answer. */
    static long epochOf(MoveContext context, String url) {
        try {
            return MetadataCodec.decodeMetadata(context.metadataClient().fetch(url))
                    .epoch();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
