package io.ringbase.storage.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UniversalPickerTest {

    private static final long MB = 1 << 20;
    private final UniversalPicker picker = new UniversalPicker(CompactionOptions.defaults());

    /** Tables numbered 1.. oldest first (file number and newest version rising together). */
    private static List<TableInfo> oldestFirst(long... sizes) {
        List<TableInfo> out = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            out.add(new TableInfo(i + 1, sizes[i], 1, 0, 1000L + i, Long.MAX_VALUE));
        }
        return out;
    }

    @Test
    void theSizeAmplificationBoundFiresAtItsPercentAndNotBelow() {
        // oldest 100 MB; newer tables of 3 x 8 = 24 MB: 24 % < 25 %, a run too short for the size ratio
        List<TableInfo> below = oldestFirst(100 * MB, 8 * MB, 8 * MB, 8 * MB);
        assertThat(picker.pick(below)).isEmpty();
        assertThat(picker.backlog(below)).isEqualTo(3);
        // 25 MB newer: exactly the bound, every table is merged
        List<TableInfo> at = oldestFirst(100 * MB, 9 * MB, 8 * MB, 8 * MB);
        assertThat(picker.pick(at)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
        assertThat(picker.backlog(at)).isEqualTo(3);
        // 24.99 %: not yet
        assertThat(picker.pick(oldestFirst(10_000, 833, 833, 833))).isEmpty();
        assertThat(picker.pick(oldestFirst(10_000, 834, 833, 833))).hasSize(4);
    }

    @Test
    void belowTheMinimumNumberOfTablesNothingIsMerged() {
        // a small store just flushed: 3 tables far above the bound wait for a fourth (RocksDB's trigger)
        List<TableInfo> three = oldestFirst(10 * MB, 10 * MB, 10 * MB);
        assertThat(picker.pick(three)).isEmpty();
        assertThat(picker.backlog(three)).isEqualTo(3);
        assertThat(picker.pick(oldestFirst(10 * MB, 10 * MB, 10 * MB, 10 * MB))).hasSize(4);
    }

    @Test
    void theBoundFollowsItsOption() {
        UniversalPicker loose = new UniversalPicker(CompactionOptions.defaults().withMaxSizeAmplificationPercent(200));
        // newest first 50, 60, 70, 100: 180 % < 200 %, and each table is more than 101 % of the newer ones
        List<TableInfo> t = oldestFirst(100 * MB, 70 * MB, 60 * MB, 50 * MB);
        assertThat(loose.pick(t)).isEmpty();
        assertThat(picker.pick(t)).hasSize(4);
    }

    @Test
    void theSizeRatioMergesARunOfSimilarTablesFromTheNewest() {
        // oldest 1 GB, then 40 MB (older), then four flushes of ~4 MB: the flushes form a run, 40 MB stops it
        List<TableInfo> t = oldestFirst(1000 * MB, 40 * MB, 4 * MB, 4 * MB, 4 * MB, 4 * MB);
        assertThat(picker.pick(t)).containsExactlyInAnyOrder(3L, 4L, 5L, 6L);
        assertThat(picker.backlog(t)).isEqualTo(4);
        // three flushes are below the minimum merge width (4): settled, counted as where flushes land
        List<TableInfo> three = oldestFirst(1000 * MB, 40 * MB, 4 * MB, 4 * MB, 4 * MB);
        assertThat(picker.pick(three)).isEmpty();
        assertThat(picker.backlog(three)).isEqualTo(3);
    }

    @Test
    void theRunGrowsWhileTheNextTableIsAtMostTheSumSoFar() {
        // newest first: 4, 4 (<= 4.04), 8 (<= 8.08), 16 (<= 16.16), then 1000 stops it
        List<TableInfo> t = oldestFirst(1000 * MB, 16 * MB, 8 * MB, 4 * MB, 4 * MB);
        assertThat(picker.pick(t)).containsExactlyInAnyOrder(2L, 3L, 4L, 5L);
        // a table just above 101 % of the sum stops the run: 4, 4, then 8.1 > 8.08 MiB
        List<TableInfo> stopped = oldestFirst(1000 * MB, 16 * MB, 8300 * 1024, 4 * MB, 4 * MB);
        assertThat(picker.pick(stopped)).isEmpty();
    }

    @Test
    void aRunFurtherFromTheNewestIsTakenWhenTheNewestIsTooShort() {
        // newest 1 MB alone (the next, 5 MB, is too big), then 5, 5, 5, 5 MB
        List<TableInfo> t = oldestFirst(1000 * MB, 5 * MB, 5 * MB, 5 * MB, 5 * MB, 1 * MB);
        assertThat(picker.pick(t)).containsExactlyInAnyOrder(2L, 3L, 4L, 5L);
    }

    @Test
    void aRunIsAtMostTheMaximumMergeWidth() {
        long[] sizes = new long[41];
        sizes[0] = 100_000 * MB;
        for (int i = 1; i < sizes.length; i++) {
            sizes[i] = MB;
        }
        assertThat(picker.pick(oldestFirst(sizes))).hasSize(32).doesNotContain(1L, 2L);
    }

    @Test
    void ageIsTheNewestVersionNotTheFileNumber() {
        // table 9 is a merge output numbered after flush 8 but holding older data: 8 is the newest run
        List<TableInfo> t = List.of(
                new TableInfo(1, 1000 * MB, 1, 0, 100, Long.MAX_VALUE),
                new TableInfo(9, 100 * MB, 1, 0, 200, Long.MAX_VALUE),
                new TableInfo(8, 10 * MB, 1, 0, 300, Long.MAX_VALUE));
        assertThat(picker.pickForTombstones(t, t.get(1))).containsExactly(9L, 1L);
        assertThat(picker.pickForTombstones(t, t.get(2))).containsExactly(8L, 9L, 1L);
    }

    @Test
    void oneOrNoTableIsNothingToMerge() {
        assertThat(picker.pick(List.of())).isEmpty();
        assertThat(picker.backlog(List.of())).isZero();
        assertThat(picker.pick(oldestFirst(100 * MB))).isEmpty();
        assertThat(picker.backlog(oldestFirst(100 * MB))).isEqualTo(1); // where flushes land, as size-tiered
    }

    @Test
    void aSettledStoreIsNoBacklogHoweverLarge() {
        // a 1 TB run and a few tables each more than the sum of the newer ones, under the bound
        List<TableInfo> t = oldestFirst(1_000_000 * MB, 100_000 * MB, 30_000 * MB, 9_000 * MB, 2_000 * MB);
        assertThat(picker.pick(t)).isEmpty();
        assertThat(picker.backlog(t)).isEqualTo(1);
    }
}
