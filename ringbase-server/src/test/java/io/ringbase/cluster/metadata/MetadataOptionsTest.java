package io.ringbase.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataOptionsTest {

    private static final Path DIR = Path.of("metadata");

    @Test
    void defaultsAndSelfAddress() {
        MetadataOptions o = MetadataOptions.of(2, Map.of(1, "h:1", 2, "h:2"), DIR);
        assertThat(o.requestTimeoutMs()).isEqualTo(MetadataOptions.DEFAULT_REQUEST_TIMEOUT_MS);
        assertThat(o.snapshotEveryEntries()).isEqualTo(MetadataOptions.DEFAULT_SNAPSHOT_EVERY_ENTRIES);
        assertThat(o.logSegmentBytes()).isEqualTo(MetadataOptions.DEFAULT_LOG_SEGMENT_BYTES);
        assertThat(o.selfAddress()).isEqualTo("h:2");
    }

    @Test
    void badValuesAreRefusedNamingThem() {
        assertThatThrownBy(() -> MetadataOptions.of(3, Map.of(1, "h:1", 2, "h:2"), DIR))
                .hasMessage("self id 3 is not one of the peers [1, 2]");
        assertThatThrownBy(() -> MetadataOptions.of(1, Map.of(1, "h:1", 2, "h:1"), DIR))
                .hasMessageStartingWith("two peers share a metadata address");
        assertThatThrownBy(() -> MetadataOptions.of(0, Map.of(0, "h:1"), DIR))
                .hasMessage("peer ids must be >= 1, got 0");
        assertThatThrownBy(() -> MetadataOptions.of(1, Map.of(), DIR))
                .hasMessage("the metadata group needs at least one peer");
        assertThatThrownBy(() -> MetadataOptions.of(1, Map.of(1, "h:1"), DIR).withRequestTimeoutMs(0))
                .hasMessage("requestTimeoutMs must be positive, got 0");
        assertThatThrownBy(() -> MetadataOptions.of(1, Map.of(1, "h:1"), DIR).withLogSegmentBytes(1024))
                .hasMessage("logSegmentBytes must be at least 8192, got 1024");
        assertThatThrownBy(() -> MetadataOptions.of(1, Map.of(1, "h"), DIR))
                .hasMessage("metadata address must be host:port, got h");
        assertThatThrownBy(() -> MetadataOptions.of(4, Map.of(4, "h:4"), DIR).asNewVoter())
                .hasMessage("a new voter needs the group's voters among the peers, got {4=h:4}");
    }

    @Test
    void aNewVoterKeepsEverythingElse() {
        MetadataOptions o =
                MetadataOptions.of(4, Map.of(2, "h:2", 3, "h:3", 4, "h:4"), DIR).withRequestTimeoutMs(5);
        assertThat(o.newVoter()).isFalse();
        MetadataOptions added = o.asNewVoter();
        assertThat(added.newVoter()).isTrue();
        assertThat(added.withRequestTimeoutMs(5)).isEqualTo(added);
        assertThat(added.peers()).isEqualTo(o.peers());
    }
}
