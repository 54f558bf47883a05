package io.ringbase.storage.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TombstoneTriggerTest {

    private static final long DAY = 24L * 60 * 60 * 1000;
    private static final long NOW = 1_800_000_000_000L;

    private final TombstoneTrigger trigger = new TombstoneTrigger(CompactionOptions.defaults(), 0);

    /** A table with {@code tombstones} of 1,000 entries, newest entry and file both {@code ageMs} old. */
    private static TableInfo table(long number, long tombstones, long ageMs) {
        return new TableInfo(
                number, 1 << 20, 1000, tombstones, HybridLogicalClock.fromPhysicalMs(NOW - ageMs), NOW - ageMs);
    }

    @Test
    void aTableAtTheThresholdAndOldEnoughIsChosen() {
        assertThat(trigger.choose(List.of(table(1, 200, DAY)), NOW, Set.of())).isEqualTo(table(1, 200, DAY));
        assertThat(trigger.choose(List.of(table(1, 199, DAY)), NOW, Set.of())).isNull();
    }

    @Test
    void aYoungerTableWaitsForTheInterval() {
        assertThat(trigger.choose(List.of(table(1, 900, DAY - 1)), NOW, Set.of()))
                .isNull();
    }

    @Test
    void aTableWithTombstonesInsideTheGracePeriodWaits() {
        TombstoneTrigger withGrace = new TombstoneTrigger(CompactionOptions.defaults(), 10 * DAY);
        assertThat(withGrace.choose(List.of(table(1, 900, 2 * DAY)), NOW, Set.of()))
                .isNull();
        assertThat(withGrace.choose(List.of(table(1, 900, 10 * DAY)), NOW, Set.of()))
                .isNotNull();
    }

    @Test
    void ofSeveralTheHighestRatioIsChosenAndUnknownAgesNever() {
        TableInfo unknownAge = new TableInfo(4, 1 << 20, 1000, 1000, 0, Long.MAX_VALUE);
        List<TableInfo> t = List.of(table(1, 300, DAY), table(2, 800, 2 * DAY), table(3, 100, 3 * DAY), unknownAge);
        assertThat(trigger.choose(t, NOW, Set.of()).number()).isEqualTo(2);
        assertThat(trigger.choose(List.of(unknownAge), NOW, Set.of())).isNull();
    }

    @Test
    void theTriggerFiresOnceNotInALoop() {
        // table 5 is chosen; its merge keeps the tombstones (another source holds their keys): output 6
        assertThat(trigger.choose(List.of(table(5, 500, 2 * DAY)), NOW, Set.of())
                        .number())
                .isEqualTo(5);
        TableInfo output = new TableInfo(6, 1 << 20, 1000, 500, HybridLogicalClock.fromPhysicalMs(NOW - 2 * DAY), NOW);
        // a new file: the interval holds it back ...
        assertThat(trigger.choose(List.of(output), NOW, Set.of())).isNull();
        // ... and once the scheduler has it as settled, whatever the clock says (a day on, a clock jump)
        assertThat(trigger.choose(List.of(output), NOW + 2 * DAY, Set.of(6L))).isNull();
        assertThat(trigger.choose(List.of(output), NOW + 2 * DAY, Set.of())).isNotNull();
    }

    @Test
    void emptyTablesAndAThresholdAboveOneNeverFire() {
        assertThat(trigger.choose(List.of(new TableInfo(1, 100, 0, 0, 0, 0)), NOW, Set.of()))
                .isNull();
        TombstoneTrigger off = new TombstoneTrigger(CompactionOptions.defaults().withTombstoneTrigger(1.01, 0), 0);
        assertThat(off.choose(List.of(table(1, 1000, DAY)), NOW, Set.of())).isNull();
    }
}
