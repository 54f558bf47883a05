package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster of {@code serve} processes loses one node to SIGKILL in the middle of quorum writes:
 * every write a client saw acknowledged (201) must read back by quorum, through the survivors while the
 * node is dead and through every node once it is back.
 */
@IntegrationTest
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterKillTest {

    static final int WRITERS = 3;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void acknowledgedWritesSurviveTheSigkillOfOneNode() throws Exception {
        List<String> urls = new ArrayList<>();
        for (int port : io.ringbase.cluster.LocalCluster.freePorts(3)) {
            urls.add("http://127.0.0.1:" + port);
        }
        NodeProcess[] nodes = new NodeProcess[3];
        try {
            for (int i = 0; i < 3; i++) {
                nodes[i] = NodeProcess.startClusterNode(tmp.resolve("node-" + i), tmp, urls, i);
            }
            NodeClient[] clients = {new NodeClient(nodes[0]), new NodeClient(nodes[1]), new NodeClient(nodes[2])};
            Map<String, String> acked = new ConcurrentHashMap<>();
            AtomicInteger failed = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            List<Throwable> crashes = Collections.synchronizedList(new ArrayList<>());
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(Thread.ofPlatform().name("writer-" + w).start(() -> {
                    Random random = new Random(writer);
                    try {
                        for (int n = 0; !stop.get() && n < 5_000; n++) {
                            String key = "w" + writer + "-" + n;
                            String value = key + "-value";
                            int status;
                            try {
                                status = clients[random.nextInt(3)].put(key, value.getBytes(StandardCharsets.UTF_8));
                            } catch (IOException e) {
                                status = -1; // the coordinator died under us
                            }
                            if (status == 201) {
                                acked.put(key, value);
                            } else {
                                failed.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        crashes.add(e);
                    }
                }));
            }
            awaitAcked(acked, 200);
            nodes[2].sigkill();
            int ackedAtKill = acked.size();
            awaitAcked(acked, ackedAtKill + 200); // and the survivors keep taking quorum writes
            stop.set(true);
            for (Thread t : writers) {
                t.join(60_000);
            }
            assertThat(crashes).isEmpty();

            assertAllReadable(acked, clients[0], "node 0, node 2 dead");
            assertAllReadable(acked, clients[1], "node 1, node 2 dead");

            nodes[2] = NodeProcess.startClusterNode(tmp.resolve("node-2"), tmp, urls, 2);
            assertAllReadable(acked, clients[2], "node 2 after its restart");
            assertAllReadable(acked, clients[0], "node 0 after node 2's restart");
        } finally {
            for (NodeProcess n : nodes) {
                if (n != null) {
                    n.close();
                }
            }
        }
    }

    private static void awaitAcked(Map<String, String> acked, int count) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(10))
                .alias(count + " acknowledged writes")
                .until(acked::size, n -> n >= count);
    }

    private static void assertAllReadable(Map<String, String> acked, NodeClient via, String what) throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> e : acked.entrySet()) {
            NodeClient.Answer a = via.get(e.getKey());
            String body = new String(a.body(), StandardCharsets.UTF_8);
            if (a.status() != 200 || !body.equals(e.getValue())) {
                wrong.add(e.getKey() + " -> " + a.status() + " " + body.strip());
            }
        }
        assertThat(wrong)
                .as("acknowledged writes read through %s (%d acknowledged)", what, acked.size())
                .isEmpty();
    }
}
