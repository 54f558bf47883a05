package io.ringbase.cluster.repair;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Continuous anti-entropy: starts a repair of this node against its peers every interval, so that every
 * replica set is repaired within the tombstone grace without an operator (Riak's active anti-entropy;
 * Cassandra with Reaper). Every node runs its own schedule, so each pair of replicas is compared from both
 * sides about twice per interval. A run still going when the next is due covers it. {@code admin repair}
 * stays the manual trigger.
 */
public final class RepairSchedule {

    private static final Logger log = LoggerFactory.getLogger(RepairSchedule.class);

    /** The shortest interval, ms: a repair of a loaded node takes minutes, more often only adds load. */
    public static final long MIN_INTERVAL_MS = 60_000;

    private RepairSchedule() {}

    /**
     * The interval that keeps replicas repaired within {@code tombstoneGraceMs}: half the grace, so a run
     * that fails once is retried in time; at least {@link #MIN_INTERVAL_MS}; 0 (no schedule) for a grace of 0
     * (a node alone, which purges at once and has no peer).
     */
    public static long intervalFor(long tombstoneGraceMs) {
        return tombstoneGraceMs <= 0 ? 0 : Math.max(MIN_INTERVAL_MS, tombstoneGraceMs / 2);
    }

    /**
     * Schedules {@code repair} on {@code scheduler} every {@code intervalMs} (first after one interval, each
     * delay with up to 10% random jitter so the nodes of a cluster do not all start at once); nothing for an
     * interval of 0.
     */
    public static void start(ScheduledExecutorService scheduler, AntiEntropyRepair repair, long intervalMs) {
        if (intervalMs <= 0) {
            return;
        }
        long jitter = ThreadLocalRandom.current().nextLong(intervalMs / 10 + 1);
        var _ = scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        if (repair.start()) {
                            log.info("scheduled anti-entropy repair started (every {} ms)", intervalMs);
                        } else {
                            log.info("scheduled anti-entropy repair skipped: a repair is running already");
                        }
                    } catch (RuntimeException e) { // thrown out of the task, it would cancel every later run
                        log.error("scheduled anti-entropy repair could not start; next in {} ms", intervalMs, e);
                    }
                },
                intervalMs + jitter,
                intervalMs,
                TimeUnit.MILLISECONDS);
        log.info(
                "anti-entropy repair runs every {} s (half the tombstone grace, at least {} s)",
                intervalMs / 1000,
                MIN_INTERVAL_MS / 1000);
    }
}
