package io.ringbase.storage.lsm.compaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Decides which SSTables to merge next, universal compaction with a bound on space amplification: each
 * table is a sorted run, ordered newest first. Nothing is merged while fewer than
 * {@link CompactionOptions#minThreshold()} tables are live (RocksDB's
 * {@code level0_file_num_compaction_trigger}, so that a small store is not rewritten at every flush);
 * from then on two rules, tried in this order, pick a merge. Pure logic: no I/O.
 * <ol>
 *   <li><b>Size amplification.</b> If the tables newer than the oldest together hold at least
 *       {@link CompactionOptions#maxSizeAmplificationPercent()} % of the oldest table's bytes, every table
 *       is merged (a full compaction). Under overwrites the oldest table holds the live data, so the live
 *       tables stay within about {@code 1 + percent/100} times it, plus what is flushed while the full
 *       compaction runs. A full compaction needs free space for its output, the size of the data; the
 *       engine refuses one without it and retries after the next flush.</li>
 *   <li><b>Size ratio.</b> Otherwise, from the newest table on, a run is taken while the next table is at
 *       most {@code (100 + sizeRatioPercent)} % of the run's bytes so far; at least
 *       {@link CompactionOptions#minThreshold()} tables (the minimum merge width), at most
 *       {@link CompactionOptions#maxThreshold()}, are merged. If the run from the newest is too short, runs
 *       starting at older tables are tried. This merges the small, similar tables flushes leave.</li>
 * </ol>
 *
 * <p>Age order: by the table's newest entry version, newest first, ties by file number. The file number
 * alone is not the age of the data: a compaction takes its output's number when it starts, so a flush
 * begun just before and finished during the merge holds newer data under a smaller number; the newest
 * version of a merge's output is its newest input's, which places it right.
 *
 * <p>Source: RocksDB's universal compaction ({@code max_size_amplification_percent} 200 by default there,
 * 25 here; {@code size_ratio} 1; {@code min_merge_width} 2, 4 here; {@code max_merge_width}), whose sorted
 * runs are our tables; and its delete-triggered compaction, which merges a table marked for its
 * tombstones with every older run ({@link #pickForTombstones}).
 */
public final class UniversalPicker implements CompactionPicker {

    /** Newest first: by newest version, then by file number. */
    static final Comparator<TableInfo> NEWEST_FIRST = Comparator.comparingLong(TableInfo::maxVersion)
            .thenComparingLong(TableInfo::number)
            .reversed();

    private final CompactionOptions options;

    public UniversalPicker(CompactionOptions options) {
        this.options = options;
    }

    /**
     * Picks the tables to merge next: all of them if the size-amplification bound is reached, else the
     * first run of similar-sized tables from the newest on.
     *
     * @param tables the live tables, in any order
     * @return the file numbers of the tables to merge, or an empty list if nothing needs compacting
     */
    @Override
    public List<Long> pick(List<TableInfo> tables) {
        if (tables.size() < options.minThreshold()) {
            return List.of();
        }
        List<TableInfo> runs = newestFirst(tables);
        if (sizeAmplificationReached(runs)) {
            return numbers(runs);
        }
        return numbers(sizeRatioRun(runs));
    }

    /** The candidate and every table older than it: a merge whose output no older table can shadow. */
    @Override
    public List<Long> pickForTombstones(List<TableInfo> tables, TableInfo candidate) {
        List<TableInfo> runs = newestFirst(tables);
        int at = runs.indexOf(candidate);
        return at < 0 ? List.of(candidate.number()) : numbers(runs.subList(at, runs.size()));
    }

    /**
     * The tables compaction has yet to merge: with the size-amplification bound reached (and the minimum
     * number of tables live), every table but the oldest; otherwise the newest run of similar-sized tables,
     * where flushes land (counted even below the minimum merge width, as size-tiered counts its smallest
     * tier), or the run the size ratio would merge if that is longer. A settled state (nothing picked)
     * counts fewer than the minimum merge width.
     */
    @Override
    public int backlog(List<TableInfo> tables) {
        if (tables.isEmpty()) {
            return 0;
        }
        List<TableInfo> runs = newestFirst(tables);
        if (runs.size() >= options.minThreshold() && sizeAmplificationReached(runs)) {
            return runs.size() - 1;
        }
        return Math.max(runFrom(runs, 0), sizeRatioRun(runs).size());
    }

    /** Whether the tables newer than the oldest hold at least the bound's share of its bytes. */
    private boolean sizeAmplificationReached(List<TableInfo> runs) {
        if (runs.size() < 2) {
            return false;
        }
        long newer = 0;
        for (int i = 0; i < runs.size() - 1; i++) {
            newer += runs.get(i).sizeBytes();
        }
        long oldest = runs.getLast().sizeBytes();
        return (double) newer * 100 >= (double) options.maxSizeAmplificationPercent() * oldest;
    }

    /** The first run, from the newest table on, of at least the minimum merge width; empty if none. */
    private List<TableInfo> sizeRatioRun(List<TableInfo> runs) {
        for (int start = 0; start + options.minThreshold() <= runs.size(); start++) {
            int length = runFrom(runs, start);
            if (length >= options.minThreshold()) {
                return runs.subList(start, start + length);
            }
        }
        return List.of();
    }

    /** How many tables from {@code start} on the size ratio takes, at most the maximum merge width. */
    private int runFrom(List<TableInfo> runs, int start) {
        double sum = runs.get(start).sizeBytes();
        int length = 1;
        while (start + length < runs.size() && length < options.maxThreshold()) {
            long next = runs.get(start + length).sizeBytes();
            if (next * 100.0 > sum * (100 + options.sizeRatioPercent())) {
                break;
            }
            sum += next;
            length++;
        }
        return length;
    }

    private static List<TableInfo> newestFirst(List<TableInfo> tables) {
        List<TableInfo> runs = new ArrayList<>(tables);
        runs.sort(NEWEST_FIRST);
        return runs;
    }

    private static List<Long> numbers(List<TableInfo> tables) {
        return tables.stream().map(TableInfo::number).toList();
    }
}
