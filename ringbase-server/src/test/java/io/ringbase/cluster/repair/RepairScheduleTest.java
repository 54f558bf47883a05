package io.ringbase.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RepairScheduleTest {

    @Test
    void repairsTwicePerTombstoneGrace() {
        long tenDays = 10L * 24 * 3600 * 1000;
        assertThat(RepairSchedule.intervalFor(tenDays)).isEqualTo(tenDays / 2);
    }

    @Test
    void neverMoreOftenThanOncePerMinute() {
        assertThat(RepairSchedule.intervalFor(2_000)).isEqualTo(RepairSchedule.MIN_INTERVAL_MS);
    }

    @Test
    void noScheduleWithoutGrace() {
        assertThat(RepairSchedule.intervalFor(0)).isZero();
    }
}
