package io.ringbase.storage.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    /**
     * A table of 1,000 entries, {@code tombstones} of them tombstones and {@code expiring} values with an
     * expiry, the latest {@code expiredMs} ago; file and newest version {@code ageMs} old.
     */
    private static TableInfo ttl(long number, long tombstones, long expiring, long expiredMs, long ageMs) {
        return new TableInfo(
                number,
                1 << 20,
                1000,
                tombstones,
                expiring,
                expiring == 0 ? 0 : NOW - expiredMs,
                HybridLogicalClock.fromPhysicalMs(NOW - ageMs),
                NOW - ageMs);
    }

    @Test
    void aTableOfExpiredValuesIsChosen() {
        TableInfo expired = ttl(1, 0, 1000, 1, DAY);
        assertThat(trigger.choose(List.of(expired), NOW, Set.of())).isEqualTo(expired);
        assertThat(trigger.droppable(expired, NOW)).isEqualTo(new TombstoneTrigger.Droppable(0, 1000));
        // at the threshold, and just under it
        assertThat(trigger.choose(List.of(ttl(2, 0, 200, 1, DAY)), NOW, Set.of()))
                .isNotNull();
        assertThat(trigger.choose(List.of(ttl(2, 0, 199, 1, DAY)), NOW, Set.of()))
                .isNull();
    }

    @Test
    void tombstonesAndExpiredValuesAddUp() {
        // 100 tombstones and 100 expired values: neither alone reaches 0.2, together they do
        assertThat(trigger.choose(List.of(ttl(1, 100, 100, 1, DAY)), NOW, Set.of()))
                .isNotNull();
        assertThat(trigger.choose(List.of(ttl(1, 100, 0, 0, DAY)), NOW, Set.of()))
                .isNull();
    }

    @Test
    void oneValueNotYetExpiredKeepsTheTableFromBeingChosenForItsValues() {
        // every value but one expired long ago: maxExpiresAt is that one's expiry, a minute from now
        TableInfo oneLive = ttl(1, 0, 1000, -60_000, DAY);
        assertThat(trigger.choose(List.of(oneLive), NOW, Set.of())).isNull();
        assertThat(trigger.droppable(oneLive, NOW).total()).isZero();
        // expiring exactly now, with no grace: droppable (TombstonePurge drops expiresAt <= now - grace)
        assertThat(trigger.choose(List.of(ttl(1, 0, 1000, 0, DAY)), NOW, Set.of()))
                .isNotNull();
    }

    @Test
    void expiredValuesWaitForTheGracePeriodAndTheInterval() {
        TombstoneTrigger withGrace = new TombstoneTrigger(CompactionOptions.defaults(), 10 * DAY);
        assertThat(withGrace.choose(List.of(ttl(1, 0, 1000, 10 * DAY - 1, 20 * DAY)), NOW, Set.of()))
                .isNull();
        assertThat(withGrace.choose(List.of(ttl(1, 0, 1000, 10 * DAY, 20 * DAY)), NOW, Set.of()))
                .isNotNull();
        assertThat(trigger.choose(List.of(ttl(1, 0, 1000, DAY, DAY - 1)), NOW, Set.of()))
                .as("a table younger than the interval")
                .isNull();
    }

    @Test
    void tombstonesInsideTheGracePeriodAreNotCountedButExpiredValuesStillAre() {
        TombstoneTrigger withGrace = new TombstoneTrigger(CompactionOptions.defaults(), 10 * DAY);
        // newest version 2 days old: its 900 tombstones are within the grace; its 100 values expired 11 days ago
        TableInfo t = ttl(1, 900, 100, 11 * DAY, 2 * DAY);
        assertThat(withGrace.droppable(t, NOW)).isEqualTo(new TombstoneTrigger.Droppable(0, 100));
        assertThat(withGrace.choose(List.of(t), NOW, Set.of())).isNull(); // 0.1 < 0.2
        TableInfo more = ttl(1, 700, 300, 11 * DAY, 2 * DAY);
        assertThat(withGrace.choose(List.of(more), NOW, Set.of())).isEqualTo(more);
    }

    @Test
    void aTableOfAnOlderFormatIsNeverChosenForExpiredValues() {
        // format versions 1 to 4 record no expiries: the engine builds their TableInfo with 0 and 0
        TableInfo older = new TableInfo(1, 1 << 20, 1000, 0, HybridLogicalClock.fromPhysicalMs(NOW - DAY), NOW - DAY);
        assertThat(older.expiringCount()).isZero();
        assertThat(trigger.choose(List.of(older), NOW + 1000 * DAY, Set.of())).isNull();
    }

    @Test
    void anExpiredTableIsChosenOnceNotInALoop() {
        assertThat(trigger.choose(List.of(ttl(5, 0, 1000, 1, 2 * DAY)), NOW, Set.of()))
                .isNotNull();
        // its merge kept the values (another source holds their keys): output 6, as expired, a new file
        TableInfo output = new TableInfo(
                6, 1 << 20, 1000, 0, 1000, NOW - 1, HybridLogicalClock.fromPhysicalMs(NOW - 2 * DAY), NOW);
        assertThat(trigger.choose(List.of(output), NOW, Set.of())).isNull();
        assertThat(trigger.choose(List.of(output), NOW + 2 * DAY, Set.of(6L))).isNull();
    }

    @Test
    void inconsistentExpiryStatisticsAreRefused() {
        assertThatThrownBy(() -> new TableInfo(1, 1, 10, 5, 6, 1, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expiringCount");
        assertThatThrownBy(() -> new TableInfo(1, 1, 10, 0, 3, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxExpiresAt");
        assertThatThrownBy(() -> new TableInfo(1, 1, 10, 0, 0, 5, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxExpiresAt");
    }

    @Test
    void emptyTablesAndAThresholdAboveOneNeverFire() {
        assertThat(trigger.choose(List.of(new TableInfo(1, 100, 0, 0, 0, 0)), NOW, Set.of()))
                .isNull();
        TombstoneTrigger off = new TombstoneTrigger(CompactionOptions.defaults().withTombstoneTrigger(1.01, 0), 0);
        assertThat(off.choose(List.of(table(1, 1000, DAY)), NOW, Set.of())).isNull();
    }
}
