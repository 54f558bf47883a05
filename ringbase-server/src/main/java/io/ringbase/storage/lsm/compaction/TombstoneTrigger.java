package io.ringbase.storage.lsm.compaction;

import io.ringbase.clock.HybridLogicalClock;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Chooses a table to compact for its tombstones when the strategy picks nothing: a table at least
 * {@link CompactionOptions#tombstoneThreshold()} of whose entries are tombstones, written at least
 * {@link CompactionOptions#tombstoneIntervalMs()} ago, and whose newest entry is older than the tombstone
 * grace period, so that every tombstone in it has passed the purge horizon ({@link TombstonePurge}). Of
 * several, the one with the highest ratio. Without this, tombstones in a table no size rule merges (the
 * largest tier, or the oldest run) would stay, with the data they shadow, for good. Pure logic: no I/O.
 *
 * <p>It must not loop: a merge may keep a tombstone (another source may still hold its key), leaving an
 * output as full of tombstones as its input. The output is new, so the interval holds it back; and the
 * caller passes the outputs of its tombstone compactions as {@code settled}, which are never chosen
 * again, whatever the clocks say.
 *
 * <p>Source: Cassandra's single-SSTable tombstone compaction ({@code tombstone_threshold} 0.2,
 * {@code tombstone_compaction_interval} 1 day, the SSTable's age being its data file's modification time).
 */
public final class TombstoneTrigger {

    private final double threshold;
    private final long intervalMs;
    private final long graceMs;

    /**
     * @param options the trigger's threshold and interval
     * @param graceMs the engine's tombstone grace period, ms ({@link TombstonePurge})
     */
    public TombstoneTrigger(CompactionOptions options, long graceMs) {
        this.threshold = options.tombstoneThreshold();
        this.intervalMs = options.tombstoneIntervalMs();
        this.graceMs = graceMs;
    }

    /**
     * The table to compact for its tombstones, if any.
     *
     * @param tables  the live tables, in any order
     * @param nowMs   the wall clock, Unix epoch ms
     * @param settled file numbers never to choose (outputs of earlier tombstone compactions)
     * @return the chosen table, or {@code null}
     */
    public @Nullable TableInfo choose(List<TableInfo> tables, long nowMs, Set<Long> settled) {
        @Nullable TableInfo best = null;
        for (TableInfo t : tables) {
            if (t.entryCount() == 0 || t.tombstoneRatio() < threshold || settled.contains(t.number())) {
                continue;
            }
            if (t.createdAtMs() == Long.MAX_VALUE || nowMs - t.createdAtMs() < intervalMs) {
                continue; // too young, or age unknown
            }
            if (HybridLogicalClock.physicalMs(t.maxVersion()) > nowMs - graceMs) {
                continue; // some tombstone in it is still within the grace period: nothing to drop yet
            }
            if (best == null || t.tombstoneRatio() > best.tombstoneRatio()) {
                best = t;
            }
        }
        return best;
    }
}
