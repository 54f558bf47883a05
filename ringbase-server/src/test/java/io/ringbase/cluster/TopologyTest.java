package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyTest {

    static List<String> urls(int n) {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            urls.add("http://10.0.0." + (i / 200 + 1) + ":" + (8000 + i));
        }
        return urls;
    }

    @Test
    void nodesTakeTheirListPositionAsIndex() {
        Topology t = Topology.parse(List.of("http://a:1", "http://b:2/", "http://c:3"), "http://b:2");
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.self().index()).isEqualTo(1);
        assertThat(t.node(2).host()).isEqualTo("c");
        assertThat(Topology.quorum(3)).isEqualTo(2);
    }

    @Test
    void badListsAreRefusedWithAMessageForTheCommandLine() {
        assertThatThrownBy(() -> Topology.parse(List.of("http://a:1", "http://a:1"), "http://a:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("appears twice");
        assertThatThrownBy(() -> Topology.parse(List.of("http://a:1"), "http://b:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not in the cluster list");
        assertThatThrownBy(() -> Topology.parse(List.of("ftp://a:1"), "ftp://a:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://host:port");
    }

    @Test
    void aListAloneHasReplicationFactorItsSizeAndFromDefaultsToIt() {
        Topology t = Topology.parse(urls(5), urls(5).get(2));
        assertThat(t.replicationFactor()).isEqualTo(5);
        assertThat(t.defaultFrom()).isEqualTo(5);
        assertThat(new Topology(t.nodes(), t.self()).replicationFactor()).isEqualTo(5);
        assertThat(Topology.single("localhost", 8080).replicationFactor()).isEqualTo(1);
    }

    @Test
    void aGivenReplicationFactorIsTheDefaultFrom() {
        Topology t = Topology.parse(urls(6), urls(6).get(0), 3);
        assertThat(t.size()).isEqualTo(6);
        assertThat(t.replicationFactor()).isEqualTo(3);
        assertThat(t.defaultFrom()).isEqualTo(3);
        assertThat(Topology.quorum(t.defaultFrom())).as("default ack").isEqualTo(2);
        assertThat(Topology.parse(urls(6), urls(6).get(0), 1).defaultFrom()).isEqualTo(1);
        assertThat(Topology.parse(urls(6), urls(6).get(0), 6).defaultFrom()).isEqualTo(6);
    }

    @Test
    void aReplicationFactorOutside1ToTheNodeCountIsRefusedInOneLine() {
        assertThatThrownBy(() -> Topology.parse(urls(3), urls(3).get(0), 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replication factor 4 must be between 1 and 3 (the number of nodes)");
        assertThatThrownBy(() -> Topology.parse(urls(3), urls(3).get(0), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replication factor 0 must be between 1 and 3 (the number of nodes)");
        Topology t = Topology.parse(urls(3), urls(3).get(0));
        assertThatThrownBy(() -> new Topology(t.nodes(), t.self(), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replication factor -1");
    }

    @Test
    void atMost64NodesBecauseVersionsCarryTheNodeIndexIn6Bits() {
        assertThat(Topology.parse(urls(64), urls(64).get(63)).size()).isEqualTo(64);
        assertThatThrownBy(() -> Topology.parse(urls(65), urls(65).get(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 64 nodes");
    }

    @Test
    void httpsUrlsNameTheSameNodesAsHttpOnes() {
        Topology t = Topology.parse(List.of("https://a:1", "https://b:2/"), "https://b:2");
        assertThat(t.self().index()).isEqualTo(1);
        // the identity kept by URL (hints, remembered peers) does not move with the scheme
        assertThat(t.self().toString()).isEqualTo("http://b:2");
        assertThat(Topology.scheme(List.of("https://a:1", "https://b:2/"))).isEqualTo(Topology.HTTPS);
        assertThat(Topology.scheme(List.of("http://a:1"))).isEqualTo(Topology.HTTP);
    }

    @Test
    void mixedSchemesAreRefused() {
        assertThatThrownBy(() -> Topology.scheme(List.of("http://a:1", "http://b:2", "https://c:3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'http://a:1' and 'https://c:3' differ");
        assertThatThrownBy(() -> Topology.scheme(List.of("https://a:1", "ftp://b:2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("https://host:port");
    }
}
