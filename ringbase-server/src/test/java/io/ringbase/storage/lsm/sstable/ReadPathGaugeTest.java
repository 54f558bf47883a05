package io.ringbase.storage.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ReadPathGauge}'s rule, fed read times directly. */
class ReadPathGaugeTest {

    private static final long FAST = 2_000;
    private static final long SLOW = ReadPathGauge.SLOW_NANOS;
    /** A table wholly in the page cache at open: it starts on the mapping. */
    private static final double CACHED = 1.0;

    private static void record(ReadPathGauge g, long nanos, int times) {
        for (int i = 0; i < times; i++) {
            g.record(nanos);
        }
    }

    @Test
    void aNewTableIsReadThroughTheMapping() {
        ReadPathGauge g = new ReadPathGauge(CACHED);
        assertThat(g.preads()).isFalse();
        record(g, FAST, 1000);
        assertThat(g.preads()).isFalse();
        assertThat(g.switches()).isZero();
    }

    @Test
    void aTableMostlyOutOfThePageCacheAtOpenStartsOnPread() {
        assertThat(new ReadPathGauge(0).preads()).isTrue();
        assertThat(new ReadPathGauge(0.5).preads()).isTrue();
        assertThat(new ReadPathGauge(ReadPathGauge.MAPPED_FROM_RESIDENT - 0.001).preads())
                .isTrue();
        assertThat(new ReadPathGauge(ReadPathGauge.MAPPED_FROM_RESIDENT).preads())
                .isFalse();
        assertThat(new ReadPathGauge(1).preads()).isFalse();
        assertThat(new ReadPathGauge(-1).preads()).as("residency unknown").isFalse();
    }

    @Test
    void aTableThatStartedOnPreadGoesToTheMappingOnceItsReadsStopWaiting() {
        ReadPathGauge g = new ReadPathGauge(0.1);
        record(g, FAST, ReadPathGauge.PREAD_WINDOW);
        assertThat(g.preads()).isFalse();
        assertThat(g.switches()).isEqualTo(1);
    }

    @Test
    void oneSlowReadThroughTheMappingDoesNotSwitchTwoInAWindowDo() {
        ReadPathGauge g = new ReadPathGauge(CACHED);
        g.record(SLOW);
        record(g, FAST, 10);
        assertThat(g.preads()).as("one slow read, a preemption perhaps").isFalse();
        g.record(SLOW - 1);
        assertThat(g.preads()).as("just under the threshold is fast").isFalse();
        g.record(SLOW * 100);
        assertThat(g.preads()).as("a second slow read in the same window").isTrue();
        assertThat(g.switches()).isEqualTo(1);
    }

    @Test
    void slowReadsInDifferentWindowsDoNotAddUp() {
        ReadPathGauge g = new ReadPathGauge(CACHED);
        for (int window = 0; window < 20; window++) {
            g.record(SLOW);
            record(g, FAST, ReadPathGauge.MAPPED_WINDOW - 1);
        }
        assertThat(g.preads()).isFalse();
    }

    @Test
    void aWindowOfCachedPreadsSwitchesBackToTheMapping() {
        ReadPathGauge g = new ReadPathGauge(CACHED);
        record(g, SLOW, ReadPathGauge.MAPPED_SLOW);
        assertThat(g.preads()).isTrue();
        g.record(SLOW); // one slow among a window of fast ones
        record(g, FAST, ReadPathGauge.PREAD_WINDOW - 2);
        assertThat(g.preads()).as("the window is not full yet").isTrue();
        g.record(FAST);
        assertThat(g.preads()).as("a full window with one slow pread").isFalse();
        assertThat(g.switches()).isEqualTo(2);
    }

    @Test
    void preadsStayWhileTheDeviceIsStillRead() {
        ReadPathGauge g = new ReadPathGauge(CACHED);
        record(g, SLOW, ReadPathGauge.MAPPED_SLOW);
        for (int window = 0; window < 10; window++) {
            record(g, SLOW, ReadPathGauge.PREAD_SLOW);
            record(g, FAST, ReadPathGauge.PREAD_WINDOW - ReadPathGauge.PREAD_SLOW);
            assertThat(g.preads()).as("window %d", window).isTrue();
        }
        assertThat(g.switches()).isEqualTo(1);
    }
}
