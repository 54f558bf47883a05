package io.ringbase.storage.lsm.compaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Decides which SSTables to merge next, size-tiered: tables of similar size form a tier, and a tier
 * with {@link CompactionOptions#minThreshold()} tables is merged into one table of the next tier.
 * The number of live tables thus stays logarithmic in the data size. Pure logic: no I/O.
 *
 * <p>Source: Cassandra's SizeTieredCompactionStrategy (bucketing by average size with low/high
 * bounds, a shared bucket for small tables); of several eligible tiers this picks the one with the
 * smallest average size, the cheapest merge.
 */
public final class SizeTieredPicker implements CompactionPicker {

    private final CompactionOptions options;

    public SizeTieredPicker(CompactionOptions options) {
        this.options = options;
    }

    /**
     * Picks the tables to merge next: of the eligible tiers, the one whose tables are smallest on average.
     *
     * @param tables the live tables, in any order
     * @return the file numbers of the tables to merge (between minThreshold and maxThreshold of them),
     *         or an empty list if nothing needs compacting
     */
    @Override
    public List<Long> pick(List<TableInfo> tables) {
        List<List<TableInfo>> tiers = tiers(tables);
        List<TableInfo> best = null;
        double bestAvg = Double.MAX_VALUE;
        for (List<TableInfo> candidate : tiers) {
            if (candidate.size() < options.minThreshold()) {
                continue;
            }
            List<TableInfo> trimmed = candidate.subList(0, Math.min(candidate.size(), options.maxThreshold()));
            double avg =
                    trimmed.stream().mapToLong(TableInfo::sizeBytes).average().orElse(0);
            if (avg < bestAvg) {
                bestAvg = avg;
                best = trimmed;
            }
        }
        return best == null ? List.of() : best.stream().map(TableInfo::number).toList();
    }

    /**
     * How many of {@code tables} compaction has yet to merge, for the write slowdown and stop triggers
     * (RocksDB counts level-0 files for its {@code level0_slowdown_writes_trigger}): the tables of the
     * smallest tier, where flush outputs land (the analogue of level 0), plus those of every other tier
     * holding at least {@link CompactionOptions#minThreshold()} tables. A larger tier below the threshold
     * is settled data that no merge will reduce until more tables join it: size-tiered compaction holds up
     * to {@code minThreshold - 1} tables per tier, so counting every live table would slow the writes of
     * a large store (7 tiers of 3 tables: 21) with nothing able to clear it.
     *
     * @param tables the live tables, in any order
     * @return the count, 0 for no tables
     */
    @Override
    public int backlog(List<TableInfo> tables) {
        List<List<TableInfo>> tiers = tiers(tables);
        int count = 0;
        for (int i = 0; i < tiers.size(); i++) {
            int size = tiers.get(i).size();
            if (i == 0 || size >= options.minThreshold()) {
                count += size;
            }
        }
        return count;
    }

    /**
     * The tiers {@link #pick} chooses from: {@code tables} grouped by similar size, smallest tier first,
     * each tier's tables smallest first. Also what metrics report as SSTables per tier.
     */
    public List<List<TableInfo>> tiers(List<TableInfo> tables) {
        List<TableInfo> sorted = new ArrayList<>(tables);
        sorted.sort(Comparator.comparingLong(TableInfo::sizeBytes).thenComparingLong(TableInfo::number));
        List<List<TableInfo>> tiers = new ArrayList<>();
        List<TableInfo> tier = new ArrayList<>();
        long tierTotal = 0;
        for (TableInfo t : sorted) {
            if (!tier.isEmpty()) {
                double avg = (double) tierTotal / tier.size();
                boolean bothSmall = t.sizeBytes() < options.smallTableBytes() && avg < options.smallTableBytes();
                boolean similar =
                        t.sizeBytes() >= avg * options.bucketLow() && t.sizeBytes() <= avg * options.bucketHigh();
                if (!bothSmall && !similar) {
                    tiers.add(tier);
                    tier = new ArrayList<>();
                    tierTotal = 0;
                }
            }
            tier.add(t);
            tierTotal += t.sizeBytes();
        }
        if (!tier.isEmpty()) {
            tiers.add(tier);
        }
        return tiers;
    }
}
