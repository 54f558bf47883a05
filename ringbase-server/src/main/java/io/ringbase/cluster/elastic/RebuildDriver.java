package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.streaming.StreamFailedException;
import io.ringbase.cluster.streaming.StreamPlan;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a dead node was removed (Cassandra's {@code removenode}): each node that became a replica of some of
 * the removed node's keys streams them from their surviving replicas, so every key has its replication
 * factor again. Until it has, those keys have one copy less, as in Cassandra. A failed attempt is retried.
 */
final class RebuildDriver {

    private static final Logger log = LoggerFactory.getLogger(RebuildDriver.class);

    /** Attempts before the rebuild gives up (an operator then runs {@code admin repair}). */
    static final int ATTEMPTS = 5;

    private RebuildDriver() {}

    /**
     * @param before the placement in which the removed node still held keys
     * @param after  the placement without it
     */
    static void run(
            ElasticMembership membership,
            MoveContext context,
            Placement before,
            Placement after,
            NodeId removed,
            Consumer<MoveStatus> status) {
        NodeId self = membership.self();
        for (int attempt = 1; attempt <= ATTEMPTS && !membership.closing(); attempt++) {
            long entries = 0;
            long bytes = 0;
            long started = System.nanoTime();
            try {
                for (NodeId source : after.current().nodes()) {
                    if (source.equals(self) || !before.current().contains(source)) {
                        continue;
                    }
                    StreamPlan plan = new StreamPlan(
                            after.epoch(),
                            after.replicationFactor(),
                            before.current(),
                            after.current(),
                            source,
                            self,
                            true);
                    var got = context.stream(plan);
                    entries += got.entries();
                    bytes += got.bytes();
                }
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                context.forgetCursors();
                status.accept(new MoveStatus("rebuild", "done", after.epoch(), 0, 0, entries, bytes, ms, ""));
                log.info(
                        "rebuilt the keys of removed node {}: {} entries, {} bytes in {} ms",
                        removed,
                        entries,
                        bytes,
                        ms);
                return;
            } catch (InterruptedException e) {
                return;
            } catch (IOException | StreamFailedException | RuntimeException e) {
                log.warn(
                        "rebuilding the keys of removed node {} failed (attempt {} of {}): {}",
                        removed,
                        attempt,
                        ATTEMPTS,
                        e.getMessage());
                status.accept(new MoveStatus(
                        "rebuild", "failed", after.epoch(), 0, 0, entries, bytes, 0, String.valueOf(e.getMessage())));
                try {
                    TimeUnit.SECONDS.sleep(2L * attempt);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
        log.error("gave up rebuilding the keys of removed node {}: run ringbase admin repair on this node", removed);
    }
}
