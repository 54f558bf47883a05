package io.ringbase.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {

    @Test
    void readingsFollowTheWallClockAndCarryTheNodeIndex() {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 5_000L, 3);
        long v = clock.now();
        assertThat(HybridLogicalClock.physicalMs(v)).isEqualTo(5_000L);
        assertThat(HybridLogicalClock.logical(v)).isZero();
        assertThat(HybridLogicalClock.node(v)).isEqualTo(3);
        long w = clock.now();
        assertThat(w).isGreaterThan(v);
        assertThat(HybridLogicalClock.logical(w)).isEqualTo(1);
        assertThat(HybridLogicalClock.node(w)).isEqualTo(3);
    }

    @Test
    void twoNodesNeverIssueTheSameVersionInOneMillisecond() {
        AtomicLong wall = new AtomicLong(7_000L);
        HybridLogicalClock a = new HybridLogicalClock(wall::get, 0);
        HybridLogicalClock b = new HybridLogicalClock(wall::get, 1);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 5_000; i++) {
            assertThat(seen.add(a.now())).isTrue();
            assertThat(seen.add(b.now())).isTrue();
            if (i % 100 == 0) {
                wall.incrementAndGet();
            }
        }
    }

    @Test
    void aReadingAfterObservingAnotherNodesVersionIsAboveItAndStillOurs() throws Exception {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L, 2);
        long foreign = HybridLogicalClock.fromPhysicalMs(1_000L) + (40 << HybridLogicalClock.NODE_BITS) + 63;
        clock.observe(foreign);
        long v = clock.now();
        assertThat(v).isGreaterThan(foreign);
        assertThat(HybridLogicalClock.node(v)).isEqualTo(2);
        assertThat(HybridLogicalClock.logical(v)).isEqualTo(41);
    }

    @Test
    void aCounterThatRunsOutMovesIntoTheNextMillisecond() {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L, 1);
        long v = 0;
        for (int i = 0; i < 1_025; i++) {
            long next = clock.now();
            assertThat(next).isGreaterThan(v);
            v = next;
        }
        assertThat(HybridLogicalClock.physicalMs(v)).isEqualTo(1_001L);
        assertThat(HybridLogicalClock.node(v)).isEqualTo(1);
    }

    @Test
    void aWallClockStepBackDoesNotGoBackwards() {
        AtomicLong wall = new AtomicLong(9_000L);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get, 0);
        long v = clock.now();
        wall.set(8_000L);
        assertThat(clock.now()).isGreaterThan(v);
    }

    @Test
    void nodeIndexOutsideTheBitsIsRefused() {
        assertThatThrownBy(() -> new HybridLogicalClock(64)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HybridLogicalClock(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------- bounds

    @Test
    void aVersionNear2To63IsRefusedAndTheClockKeepsIssuingIncreasingVersions() throws Exception {
        // regression: one internal write with such a version overflowed the clock, and every later write
        // of its key lost (504 after three re-version attempts)
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L, 1);
        long before = clock.now();
        for (long v : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 63, Long.MAX_VALUE - (1L << 16), 1L << 62}) {
            assertThatThrownBy(() -> clock.observe(v))
                    .as("version %d", v)
                    .isInstanceOf(ClockOffsetException.class)
                    .hasMessageContaining("ahead of this node's clock");
        }
        long after = clock.now();
        assertThat(after).isGreaterThan(before);
        assertThat(HybridLogicalClock.physicalMs(after)).isEqualTo(1_000L);
    }

    @Test
    void aNegativeVersionIsRefused() {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L, 0);
        assertThatThrownBy(() -> clock.observe(-1))
                .isInstanceOf(ClockOffsetException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> clock.observe(Long.MIN_VALUE)).isInstanceOf(ClockOffsetException.class);
        assertThat(clock.observeStored(-5)).isFalse();
        assertThat(HybridLogicalClock.physicalMs(clock.now())).isEqualTo(1_000L);
    }

    @Test
    void aVersionUpToTheMaxOffsetAheadIsObservedAndOnePastItIsRefused() throws Exception {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 10_000L, 2, 500);
        long atBound = HybridLogicalClock.fromPhysicalMs(10_500L) + (7 << HybridLogicalClock.NODE_BITS) + 1;
        clock.observe(atBound);
        assertThat(clock.now()).isGreaterThan(atBound);
        long pastBound = HybridLogicalClock.fromPhysicalMs(10_501L);
        ClockOffsetException refused = org.junit.jupiter.api.Assertions.assertThrows(
                ClockOffsetException.class, () -> clock.observe(pastBound));
        assertThat(refused.aheadMs()).isEqualTo(501);
        assertThat(refused.maxOffsetMs()).isEqualTo(500);
        assertThat(refused.version()).isEqualTo(pastBound);
        assertThat(clock.now()).as("a refused version does not move the clock").isLessThan(pastBound);
    }

    @Test
    void aRefusedVersionIsAcceptedOnceTheWallClockHasCaughtUp() throws Exception {
        AtomicLong wall = new AtomicLong(10_000L);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get, 0, 500);
        long skewed = HybridLogicalClock.fromPhysicalMs(11_000L) + 5;
        assertThatThrownBy(() -> clock.observe(skewed)).isInstanceOf(ClockOffsetException.class);
        wall.set(10_600L);
        clock.observe(skewed);
        assertThat(clock.now()).isGreaterThan(skewed);
    }

    @Test
    void versionsFromThePastAreAlwaysObserved() throws Exception {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 10_000L, 0, 1);
        clock.observe(0);
        clock.observe(HybridLogicalClock.fromPhysicalMs(1L));
        clock.observe(HybridLogicalClock.fromPhysicalMs(10_000L) + 1000);
        assertThat(clock.now()).isGreaterThan(HybridLogicalClock.fromPhysicalMs(10_000L) + 1000);
    }

    @Test
    void aStoredVersionBeyondTheOffsetIsObservedSoVersionsStayMonotonicAcrossARestart() {
        // the wall clock stepped back a minute after the node had written: it must still not go back
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000_000L, 0, 500);
        long stored = HybridLogicalClock.fromPhysicalMs(1_060_000L) + 64;
        assertThat(clock.observeStored(stored)).isTrue();
        assertThat(clock.now()).isGreaterThan(stored);
    }

    @Test
    void aStoredVersionAboveMaxVersionIsIgnored() {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L, 0);
        assertThat(clock.observeStored(HybridLogicalClock.MAX_VERSION + 1)).isFalse();
        assertThat(clock.observeStored(Long.MAX_VALUE)).isFalse();
        assertThat(HybridLogicalClock.physicalMs(clock.now())).isEqualTo(1_000L);
        assertThat(clock.observeStored(HybridLogicalClock.MAX_VERSION)).isTrue();
        long v = clock.now();
        assertThat(v).isGreaterThan(HybridLogicalClock.MAX_VERSION).isPositive();
    }

    @Test
    void noSequenceOfObservationsMakesReadingsGoBackwardsOrNegative() {
        java.util.Random random = new java.util.Random(42);
        AtomicLong wall = new AtomicLong(1_700_000_000_000L);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get, 5, 500);
        long last = clock.now();
        for (int i = 0; i < 100_000; i++) {
            long candidate = switch (random.nextInt(4)) {
                case 0 -> random.nextLong();
                case 1 -> Long.MAX_VALUE - random.nextInt(1 << 20);
                case 2 ->
                    HybridLogicalClock.fromPhysicalMs(wall.get() + random.nextInt(2_000) - 1_000)
                            + random.nextInt(1 << 16);
                default -> last + random.nextInt(1 << 20);
            };
            try {
                clock.observe(candidate);
            } catch (ClockOffsetException refused) {
                assertThat(HybridLogicalClock.physicalMs(candidate) - wall.get() > 500 || candidate < 0)
                        .isTrue();
            }
            if (random.nextInt(100) == 0) {
                clock.observeStored(random.nextLong());
            }
            wall.addAndGet(random.nextInt(3) - 1); // the wall clock may even step back
            long next = clock.now();
            assertThat(next).isGreaterThan(last).isPositive();
            assertThat(HybridLogicalClock.node(next)).isEqualTo(5);
            last = next;
        }
    }

    @Test
    void maxOffsetOutsideItsRangeIsRefused() {
        assertThatThrownBy(() -> new HybridLogicalClock(() -> 0L, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HybridLogicalClock(() -> 0L, 0, HybridLogicalClock.MAX_MAX_OFFSET_MS + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTestOffsetSkewsTheClocksWallClockOnly() {
        long before = System.currentTimeMillis();
        HybridLogicalClock ahead =
                ClockOptions.defaults().withTestOffsetMs(60_000).newClock(0);
        long v = ahead.now();
        assertThat(HybridLogicalClock.physicalMs(v)).isBetween(before + 60_000, System.currentTimeMillis() + 60_000);
        HybridLogicalClock behind =
                ClockOptions.defaults().withTestOffsetMs(-60_000).newClock(1);
        assertThat(HybridLogicalClock.physicalMs(behind.now()))
                .isLessThanOrEqualTo(System.currentTimeMillis() - 60_000);
        assertThat(behind.maxOffsetMs()).isEqualTo(500);
        assertThatThrownBy(() -> behind.observe(v))
                .as("a node 60 s behind refuses a version 120 s ahead of it")
                .isInstanceOf(ClockOffsetException.class);
        assertThatThrownBy(() -> new ClockOptions(500, 86_400_001L)).isInstanceOf(IllegalArgumentException.class);
    }
}
