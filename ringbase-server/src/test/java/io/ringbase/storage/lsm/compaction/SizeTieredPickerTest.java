package io.ringbase.storage.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SizeTieredPickerTest {

    private static final long MB = 1 << 20;
    private final SizeTieredPicker picker = new SizeTieredPicker(CompactionOptions.defaults());

    private static List<TableInfo> tables(long... sizes) {
        List<TableInfo> out = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            out.add(new TableInfo(i + 1, sizes[i]));
        }
        return out;
    }

    @Test
    void settledTiersOfThreeAreNoBacklog() {
        // 7 tiers of 3 tables each, 100 MB to 6.4 GB: nothing to merge, only the smallest tier counts
        List<Long> sizes = new ArrayList<>();
        for (int tier = 0; tier < 7; tier++) {
            for (int i = 0; i < 3; i++) {
                sizes.add((100 * MB) << tier);
            }
        }
        List<TableInfo> settled =
                tables(sizes.stream().mapToLong(Long::longValue).toArray());
        assertThat(picker.pick(settled)).isEmpty();
        assertThat(picker.backlog(settled)).isEqualTo(3);
    }

    @Test
    void backlogCountsTheSmallestTierAndEveryTierDueForAMerge() {
        // 5 flush outputs (smallest tier), a settled tier of 3 and a due tier of 4
        List<TableInfo> t = tables(
                1 * MB, 1 * MB, 2 * MB, 1 * MB, 3 * MB, 400 * MB, 410 * MB, 390 * MB, 1600 * MB, 1610 * MB, 1590 * MB,
                1605 * MB);
        assertThat(picker.backlog(t)).isEqualTo(5 + 4);
        assertThat(picker.backlog(List.of())).isZero();
        assertThat(picker.backlog(tables(6400 * MB))).isEqualTo(1);
    }

    @Test
    void fewerThanMinThresholdPicksNothing() {
        assertThat(picker.pick(tables(10 * MB, 11 * MB, 12 * MB))).isEmpty();
    }

    @Test
    void smallTablesShareOneTier() {
        assertThat(picker.pick(tables(1 * MB, 20 * MB, 5 * MB, 30 * MB))).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    }

    @Test
    void dissimilarLargeTablesAreNotMerged() {
        assertThat(picker.pick(tables(100 * MB, 400 * MB, 1600 * MB, 6400 * MB)))
                .isEmpty();
    }

    @Test
    void similarLargeTablesAreMerged() {
        assertThat(picker.pick(tables(5000 * MB, 100 * MB, 110 * MB, 90 * MB, 105 * MB)))
                .containsExactlyInAnyOrder(2L, 3L, 4L, 5L);
    }

    @Test
    void cheapestEligibleTierWins() {
        List<TableInfo> t = tables(1 * MB, 1 * MB, 1 * MB, 1 * MB, 200 * MB, 210 * MB, 190 * MB, 205 * MB);
        assertThat(picker.pick(t)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    }

    @Test
    void atMostMaxThresholdTablesAtOnce() {
        long[] sizes = new long[50];
        java.util.Arrays.fill(sizes, MB);
        assertThat(picker.pick(tables(sizes))).hasSize(32);
    }

    @Test
    void repeatedPickingKeepsTheTableCountLogarithmic() {
        // Simulate 1,000 flushes of 10 MB tables, compacting after each as the engine does.
        List<TableInfo> live = new ArrayList<>();
        long next = 1;
        int maxSeen = 0;
        for (int flush = 0; flush < 1000; flush++) {
            live.add(new TableInfo(next++, 10 * MB));
            while (true) {
                List<Long> pick = picker.pick(live);
                if (pick.isEmpty()) {
                    break;
                }
                long total = live.stream()
                        .filter(t -> pick.contains(t.number()))
                        .mapToLong(TableInfo::sizeBytes)
                        .sum();
                live.removeIf(t -> pick.contains(t.number()));
                live.add(new TableInfo(next++, total));
            }
            maxSeen = Math.max(maxSeen, live.size());
        }
        assertThat(maxSeen).isLessThan(20);
    }
}
