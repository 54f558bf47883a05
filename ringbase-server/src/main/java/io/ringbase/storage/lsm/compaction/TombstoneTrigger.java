package io.ringbase.storage.lsm.compaction;

import io.ringbase.clock.HybridLogicalClock;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Chooses a table to compact for its tombstones and expired values when the strategy picks nothing: a
 * table at least {@link CompactionOptions#tombstoneThreshold()} of whose entries are droppable, written at
 * least {@link CompactionOptions#tombstoneIntervalMs()} ago. Of several, the one with the highest
 * droppable ratio. Without this, tombstones and expired values in a table no size rule merges (the
 * largest tier, or the oldest run) would stay, with the data they shadow, for good. Pure logic: no I/O.
 *
 * <p>Droppable entries, counted from the table's footer only and only where the count is exact, so that
 * the trigger never chooses a table for entries a merge would have to keep for their age
 * ({@link TombstonePurge}: dead for longer than the grace period):
 * <ul>
 *   <li>its tombstones, if its newest entry is older than the grace period (then every tombstone in it is);
 *   <li>its values with an expiry, if the latest expiry among them is older than the grace period (then
 *       every one of them is); none while a single one is not. A table whose format does not record
 *       expiries (SSTable format versions 1 to 4) reports none, so it is never chosen for them.
 * </ul>
 * A merge drops a droppable entry only if no source outside it may hold its key; so the ratio is an upper
 * bound of what a compaction frees, as Cassandra's estimate is.
 *
 * <p>It must not loop: a merge may keep a tombstone or an expired value (another source may still hold
 * its key), leaving an output as droppable as its input. The output is new, so the interval holds it
 * back; and the caller passes the outputs of its trigger's compactions as {@code settled}, which are never
 * chosen again, whatever the clocks say.
 *
 * <p>Source: Cassandra's single-SSTable tombstone compaction ({@code tombstone_threshold} 0.2,
 * {@code tombstone_compaction_interval} 1 day, the SSTable's age being its data file's modification time),
 * whose droppable-tombstone ratio counts expired cells too; the whole-table rule for expired values is
 * that of its TimeWindowCompactionStrategy, which drops an SSTable once its {@code maxLocalDeletionTime}
 * is past the grace period.
 */
public final class TombstoneTrigger {

    /**
     * What a compaction of one table may drop for age, from its footer's counts.
     *
     * @param tombstones    tombstones, all past the grace period; 0 if some may not be
     * @param expiredValues values whose expiry is past the grace period, all of the table's expiring
     *                      values; 0 if some may not be
     */
    public record Droppable(long tombstones, long expiredValues) {

        /** Tombstones and expired values together. */
        public long total() {
            return tombstones + expiredValues;
        }
    }

    private final double threshold;
    private final long intervalMs;
    private final long graceMs;

    /**
     * @param options the trigger's threshold and interval
     * @param graceMs the engine's tombstone grace period, ms ({@link TombstonePurge}), at least 0
     */
    public TombstoneTrigger(CompactionOptions options, long graceMs) {
        this.threshold = options.tombstoneThreshold();
        this.intervalMs = options.tombstoneIntervalMs();
        this.graceMs = graceMs;
    }

    /**
     * The entries of {@code t} a compaction starting at {@code nowMs} may drop for their age (the rules of
     * the class comment); the table's age and the threshold are not considered here.
     *
     * @param nowMs the wall clock, Unix epoch ms
     */
    public Droppable droppable(TableInfo t, long nowMs) {
        long horizon = nowMs - graceMs; // an entry dead at or before this may be dropped
        boolean tombstonesPast = t.tombstoneCount() > 0 && HybridLogicalClock.physicalMs(t.maxVersion()) <= horizon;
        boolean expiredPast = t.expiringCount() > 0 && t.maxExpiresAt() <= horizon;
        return new Droppable(tombstonesPast ? t.tombstoneCount() : 0, expiredPast ? t.expiringCount() : 0);
    }

    /**
     * The table to compact for its tombstones and expired values, if any.
     *
     * @param tables  the live tables, in any order
     * @param nowMs   the wall clock, Unix epoch ms
     * @param settled file numbers never to choose (outputs of earlier compactions of this trigger)
     * @return the chosen table, or {@code null}
     */
    public @Nullable TableInfo choose(List<TableInfo> tables, long nowMs, Set<Long> settled) {
        @Nullable TableInfo best = null;
        double bestRatio = 0;
        for (TableInfo t : tables) {
            if (t.entryCount() == 0 || settled.contains(t.number())) {
                continue;
            }
            if (t.createdAtMs() == Long.MAX_VALUE || nowMs - t.createdAtMs() < intervalMs) {
                continue; // too young, or age unknown
            }
            double ratio = (double) droppable(t, nowMs).total() / t.entryCount();
            if (ratio > 0 && ratio >= threshold && (best == null || ratio > bestRatio)) {
                best = t;
                bestRatio = ratio;
            }
        }
        return best;
    }
}
