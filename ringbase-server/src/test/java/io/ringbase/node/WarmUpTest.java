package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.aot.TrainingLoad;
import io.ringbase.api.HttpServerConfig;
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
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link WarmUp}: the load runs on a scratch node, and nothing of the real node's config is touched. */
@IntegrationTest
@Timeout(60)
class WarmUpTest {

    @TempDir
    Path tmp;

    @Test
    void theLoadRunsOnAScratchNodeThatLeavesNothingBehind() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = tmp.resolve("data"); // not created: a warm-up must not open it
        List<String> urls = List.of("http://127.0.0.1:" + port, "http://127.0.0.1:1");
        Topology topology = Topology.parse(urls, urls.get(0));
        NodeConfig config = new NodeConfig(
                HttpServerConfig.defaults(port).withHost("127.0.0.1"),
                LsmOptions.defaults(data),
                topology,
                1000,
                null,
                HintOptions.defaults());
        Set<Path> before = warmUpDirs();

        WarmUp.Result result = WarmUp.run(config, Duration.ofMillis(1_500), 2, WarmUp.NODE_MEMTABLE_BYTES);

        assertThat(result.load().requests().get(TrainingLoad.Phase.PUT_NEW)).isPositive();
        assertThat(result.load().requests().get(TrainingLoad.Phase.GET_PRESENT)).isPositive();
        assertThat(result.elapsedMs()).isGreaterThanOrEqualTo(1_500);
        assertThat(data).doesNotExist();
        assertThat(warmUpDirs()).isEqualTo(before);
        try (ServerSocket s = new ServerSocket()) { // the real node's port was never bound
            s.bind(new InetSocketAddress("127.0.0.1", port));
        }
    }

    @Test
    void theScratchNodeIsAloneOnLoopbackWithASmallMemtable() {
        Path data = tmp.resolve("data");
        List<String> urls = List.of("http://10.0.0.1:9001", "http://10.0.0.2:9001");
        NodeConfig config = new NodeConfig(
                HttpServerConfig.defaults(9001),
                LsmOptions.defaults(data).withMemtableBytes(64L << 20),
                Topology.parse(urls, urls.get(0)),
                1000,
                null,
                HintOptions.defaults());

        NodeConfig scratch = WarmUp.scratch(config, tmp.resolve("scratch"), WarmUp.NODE_MEMTABLE_BYTES);

        assertThat(scratch.topology().isAlone()).isTrue();
        assertThat(scratch.http().host()).isEqualTo("127.0.0.1");
        assertThat(scratch.http().port()).isZero();
        assertThat(scratch.storage().dataDir()).isEqualTo(tmp.resolve("scratch"));
        assertThat(scratch.storage().memtableBytes()).isEqualTo(WarmUp.NODE_MEMTABLE_BYTES);
        assertThat(scratch.storage().walSync()).isEqualTo(config.storage().walSync());
        assertThat(scratch.engine()).isEqualTo(config.engine());
    }

    private static Set<Path> warmUpDirs() throws IOException {
        try (Stream<Path> paths = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return paths.filter(p -> p.getFileName().toString().startsWith("ringbase-warm-up-"))
                    .collect(Collectors.toSet());
        }
    }
}
