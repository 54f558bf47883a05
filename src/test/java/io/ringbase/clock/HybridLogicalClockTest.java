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
    void aReadingAfterObservingAnotherNodesVersionIsAboveItAndStillOurs() {
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
}
