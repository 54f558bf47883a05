package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The phases of a node's start, for the line it logs at ready: in the order they ended, each with its ms. */
class StartupPhasesTest {

    @Test
    void phasesAreListedInOrderWithTheirMilliseconds() {
        StartupPhases phases = new StartupPhases();
        phases.end("engine");
        phases.end("cluster services");
        phases.end("listening");
        assertThat(phases.toString()).matches("engine \\d+ ms, cluster services \\d+ ms, listening \\d+ ms");
        assertThat(phases.totalMs()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void noPhaseEndedIsAnEmptyListAndZeroMs() {
        StartupPhases phases = new StartupPhases();
        assertThat(phases.toString()).isEmpty();
        assertThat(phases.totalMs()).isZero();
    }
}
