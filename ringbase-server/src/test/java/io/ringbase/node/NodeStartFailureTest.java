package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that fails half way releases everything it had opened: the data directory's lock (the engine),
 * the event loops, the replica client and the pools; a second start on the same directory then succeeds.
 */
@IntegrationTest
@Timeout(60)
class NodeStartFailureTest {

    @TempDir
    Path tmp;

    /** Threads a node starts, by name prefix. */
    private static final List<String> NODE_THREADS = List.of(
            "ringbase-http-io",
            "ringbase-local-",
            "ringbase-read-repair",
            "ringbase-liveness",
            "hint-",
            "ringbase-http-worker");

    private NodeConfig clusterConfig(Path data) throws IOException {
        List<Integer> ports = LocalCluster.freePorts(2);
        List<String> urls = List.of("http://127.0.0.1:" + ports.get(0), "http://127.0.0.1:" + ports.get(1));
        Topology t = Topology.parse(urls, urls.get(0));
        HttpServerConfig http = HttpServerConfig.defaults(t.self().port()).withHost("127.0.0.1");
        return new NodeConfig(http, LsmOptions.defaults(data), t, 1000, null, HintOptions.defaults());
    }

    @Test
    void aHintStoreThatCannotOpenReleasesTheEngineAndTheThreads() throws Exception {
        Path data = tmp.resolve("data");
        Files.createDirectories(data);
        Files.writeString(data.resolve("hints"), "a file where the hint store's directory goes");
        NodeConfig config = clusterConfig(data);

        assertThatThrownBy(() -> Node.start(config)).isInstanceOf(IOException.class);

        awaitNoNodeThreads();
        Files.delete(data.resolve("hints"));
        try (Node again = Node.start(config)) { // the directory's lock was released
            assertThat(again.port()).isEqualTo(config.http().port());
        }
    }

    @Test
    void aPortInUseReleasesTheEngineAndTheThreads() throws Exception {
        Path data = tmp.resolve("data");
        NodeConfig config = clusterConfig(data);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", config.http().port()));
            assertThatThrownBy(() -> Node.start(config)).isInstanceOf(ListenException.class);
        }
        awaitNoNodeThreads();
        try (Node again = Node.start(config)) {
            assertThat(again.port()).isEqualTo(config.http().port());
        }
    }

    private static void awaitNoNodeThreads() {
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                        .filteredOn(Thread::isAlive)
                        .extracting(Thread::getName)
                        .filteredOn(name -> NODE_THREADS.stream().anyMatch(name::startsWith))
                        .isEmpty());
    }
}
