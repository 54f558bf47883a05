package io.ringbase.cluster.streaming;

import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.rpc.RemoteReplica;
import io.ringbase.cluster.rpc.RemoteStreamPeer;
import io.ringbase.cluster.rpc.ReplicaClient;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How fast one stream runs between two local nodes: node 0's engine is filled with
 * {@code -Dstream.bench.mb} MB (default 200) of 1 KB values, then node 1 streams all of it (a plan from a
 * ring of node 0 alone to a ring of node 1 alone) with the default {@link StreamOptions} (pages of
 * {@code -Dstream.bench.pageKiB} KiB if given) and prints
 * entries, MB, seconds and MB/s. Not a test: its name matches neither tier's pattern, so it runs only when
 * asked for:
 *
 * <pre>
 * ./mvnw -pl ringbase-server verify -Dtest=None -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dit.test=StreamingBench -Dstream.bench.mb=200
 * </pre>
 */
@IntegrationTest
@Timeout(1_800)
class StreamingBench {

    static final int VALUE_BYTES = 1_000;

    @TempDir
    Path tmp;

    @Test
    void streamBetweenTwoLocalNodes() throws Exception {
        long mb = Long.getLong("stream.bench.mb", 200);
        long count = mb * 1_000_000 / (VALUE_BYTES + 40);
        try (LocalCluster cluster = new LocalCluster(tmp, 2)) {
            Topology topology = cluster.node(0).config().topology();
            NodeId n0 = topology.nodes().get(0);
            NodeId n1 = topology.nodes().get(1);
            StorageEngine source = cluster.node(0).engine();
            long fillStart = System.nanoTime();
            HybridLogicalClock clock = new HybridLogicalClock();
            byte[] value = new byte[VALUE_BYTES];
            for (long i = 0; i < count; i++) {
                ThreadLocalRandom.current().nextBytes(value); // incompressible, as user data may be
                byte[] key = String.format("bench-%012d", i).getBytes(StandardCharsets.UTF_8);
                source.apply(Entry.value(key, clock.now(), value.clone()));
            }
            source.flush();
            System.out.printf(
                    "filled node 0 with %,d entries (%d MB) in %.1f s%n",
                    count, mb, (System.nanoTime() - fillStart) / 1e9);

            StreamPlan plan = new StreamPlan(1, 1, new Ring(List.of(n0)), new Ring(List.of(n1)), n0, n1, false);
            StreamOptions options = StreamOptions.defaults();
            options =
                    options.withPageBytes(Integer.getInteger("stream.bench.pageKiB", options.pageBytes() >> 10) << 10);
            try (ReplicaClient client = new ReplicaClient(
                    ReplicaClient.ClientConfig.defaults(10_000),
                    RequestSigner.NONE,
                    null,
                    TimeSource.SYSTEM,
                    Membership.of(Membership.DEFAULT_NAME, topology))) {
                StreamSession session = new StreamSession(
                        plan,
                        new RemoteStreamPeer(new RemoteReplica(n0, client), options.callTimeoutMs()),
                        cluster.node(1).engine(),
                        new HybridLogicalClock(),
                        cluster.dataDir(1),
                        options);
                StreamProgress done = session.run();
                double seconds = done.elapsedMs() / 1e3;
                System.out.printf(
                        "STREAM BENCH: %,d entries, %.1f MB in %.2f s: %.1f MB/s (pages of %d KiB, checkpoint"
                                + " every %d MiB, %s)%n",
                        done.entries(),
                        done.bytes() / 1e6,
                        seconds,
                        done.bytes() / 1e6 / seconds,
                        options.pageBytes() >> 10,
                        options.checkpointBytes() >> 20,
                        Files.exists(session.cursorFile()) ? "cursor stored" : "no cursor");
            }
        }
    }
}
