package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class NodeUptimeTest {

    @Test
    void readsTheUptimeOfJcmdsOutput() throws IOException {
        assertThat(NodeUptime.parse("22765:\n10.398 s\n")).isEqualTo(10.398);
        assertThat(NodeUptime.parse("22765:\n10,398 s\n")).isEqualTo(10.398);
    }

    @Test
    void outputWithoutAnUptimeIsRefused() {
        assertThatThrownBy(() -> NodeUptime.parse("22765:\nUnknown diagnostic command\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no uptime");
    }

    @Test
    void mapsThisProcesssClockToTheNodesUptime() {
        // the node was up 10 s when jcmd returned at nanoTime 1,000 s
        NodeUptime clock = NodeUptime.fromReadings(List.of(new NodeUptime.Reading(10.0, 1_000_000_000_000L)));
        assertThat(clock.at(1_000_000_000_000L)).isCloseTo(10.0, Offset.offset(1e-9));
        assertThat(clock.at(1_020_500_000_000L)).isCloseTo(30.5, Offset.offset(1e-9));
    }

    @Test
    void theReadingReturnedSoonestAfterItsReadWins() {
        // the second reading's jcmd took 0.3 s longer to return after the node read its uptime
        NodeUptime clock = NodeUptime.fromReadings(List.of(
                new NodeUptime.Reading(10.0, 1_000_000_000_000L), new NodeUptime.Reading(40.0, 1_030_300_000_000L)));
        assertThat(clock.at(1_000_000_000_000L)).isCloseTo(10.0, Offset.offset(1e-9));
    }

    @Test
    void noReadingsIsRefused() {
        assertThatThrownBy(() -> NodeUptime.fromReadings(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
