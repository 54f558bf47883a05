package io.ringbase.cluster.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.kv.ScanShare;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ShareFilterTest {

    private static final List<String> URLS =
            List.of("http://10.0.0.1:8080", "http://10.0.0.2:8080", "http://10.0.0.3:8080", "http://10.0.0.4:8080");

    private static Placement placement(long epoch) {
        Placement p = Placement.of(Topology.parse(URLS, URLS.getFirst(), 3));
        return new Placement(epoch, p.self(), p.replicationFactor(), p.current(), p.next(), Map.of());
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void keepsExactlyTheKeysOfTheShareAsTheAssignmentComputesThem() {
        Placement p = placement(4);
        Set<String> down = Set.of(URLS.get(3));
        ShareAssignment assignment = new ShareAssignment(p.current(), 3, Set.of(p.byUrl(URLS.get(3))));
        for (List<String> path : List.of(List.of(URLS.get(0)), List.of(URLS.get(1), URLS.get(2)))) {
            ShareFilter filter = ShareFilter.of(p, new ScanShare(4, down, path));
            List<NodeId> ids = path.stream().map(p::byUrl).toList();
            int kept = 0;
            for (int i = 0; i < 5_000; i++) {
                boolean in = assignment.inShare(key(i), ids);
                assertThat(filter.keep(key(i))).as("key%d in %s", i, path).isEqualTo(in);
                kept += in ? 1 : 0;
            }
            assertThat(kept).isPositive();
        }
    }

    @Test
    void aShareOfAnotherEpochIsRefusedNamingBoth() {
        assertThatThrownBy(() -> ShareFilter.of(placement(8), new ScanShare(7, Set.of(), List.of(URLS.getFirst()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epoch 7")
                .hasMessageContaining("at 8");
    }

    @Test
    void aNodeNotInTheRingIsRefused() {
        assertThatThrownBy(() -> ShareFilter.of(
                        placement(0), new ScanShare(0, Set.of("http://10.0.0.9:8080"), List.of(URLS.getFirst()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://10.0.0.9:8080");
    }
}
