package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node killed with SIGKILL (or stopped with SIGTERM) and started again on the same data directory
 * keeps every write it acknowledged, under both WAL sync policies. README: "Either way an
 * acknowledged write survives a crash of the process (SIGKILL)".
 */
@IntegrationTest
// its writers wait up to 2 min for acknowledgements, then 1 min to stop
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CrashRecoveryTest {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failed run keeps its data dir and node logs
    Path tmp;

    private Path dataDir() {
        return tmp.resolve("data");
    }

    /** The sequential workload's keys: mostly plain, some with a space, a plus, a slash and non-ASCII. */
    private static String sequentialKey(int i) {
        return i % 7 == 0 ? String.format("seq/ü %05d+x", i) : String.format("seq/%05d", i);
    }

    /** Distinct values: one empty, every third binary (any byte, CR/LF/NUL included), the rest text. */
    private static byte[] sequentialValue(int i) {
        if (i == 0) {
            return new byte[0];
        }
        Random r = new Random(i);
        byte[] head = ("v" + i + ":").getBytes(StandardCharsets.UTF_8);
        byte[] v = new byte[head.length + r.nextInt(600)];
        System.arraycopy(head, 0, v, 0, head.length);
        for (int j = head.length; j < v.length; j++) {
            v[j] = i % 3 == 0 ? (byte) r.nextInt(256) : (byte) ('a' + r.nextInt(26));
        }
        return v;
    }

    @ParameterizedTest(name = "--wal-sync {0}")
    @ValueSource(strings = {"periodic", "always"})
    void acknowledgedSequentialPutsSurviveSigkill(String walSync) throws Exception {
        int n = 2_000;
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp, "--wal-sync", walSync)) {
            NodeClient client = new NodeClient(node);
            for (int i = 0; i < n; i++) {
                assertThat(client.put(sequentialKey(i), sequentialValue(i)))
                        .as("PUT %s", sequentialKey(i))
                        .isEqualTo(201);
            }
            node.sigkill();
        }
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp, "--wal-sync", walSync)) {
            NodeClient client = new NodeClient(node);
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                NodeClient.Answer got = client.get(sequentialKey(i));
                if (got.status() != 200) {
                    problems.add("GET " + sequentialKey(i) + " -> " + got.status());
                } else if (!java.util.Arrays.equals(got.body(), sequentialValue(i))) {
                    problems.add("GET " + sequentialKey(i) + " -> wrong value of " + got.body().length + " bytes");
                }
            }
            assertThat(problems)
                    .as("after SIGKILL and restart; stderr of the restarted node:\n%s", node.stderr())
                    .isEmpty();

            List<NodeClient.Entry> range = client.range("\0", null);
            List<String> expectedKeys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expectedKeys.add(sequentialKey(i));
            }
            expectedKeys.sort(
                    Comparator.comparing(k -> k.getBytes(StandardCharsets.UTF_8), java.util.Arrays::compareUnsigned));
            assertThat(range).extracting(NodeClient.Entry::key).containsExactlyElementsOf(expectedKeys);
        }
    }

    @ParameterizedTest(name = "--wal-sync {0}")
    @ValueSource(strings = {"periodic", "always"})
    void concurrentAcknowledgedWritesSurviveSigkillMidStream(String walSync) throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        AckedWrites writes;
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp, "--wal-sync", walSync)) {
            writes = new AckedWrites(new NodeClient(node), 8, 1, 2_048, 5, seed);
            writes.start();
            assertThat(writes.awaitAckedOps(200, Duration.ofSeconds(60)))
                    .as("200 writes acknowledged")
                    .isTrue();
            // the crash itself: a random moment, 1 000-3 000 acknowledged operations into the writes (about 1-2 s
            // on a quiet machine), whatever they are doing
            long killAt = 1_000L + random.nextInt(2_000);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(1))
                    .until(writes::ackedOps, n -> n >= killAt);
            node.sigkill();
            writes.awaitWritersStopped(Duration.ofSeconds(60));
        }
        System.out.printf(
                "--wal-sync %s: %d ops acknowledged before SIGKILL, %d keys in flight (seed %d)%n",
                walSync, writes.ackedOps(), writes.uncertainKeys().size(), seed);
        assertThat(writes.unexpectedStatuses())
                .as("answers other than 201/202/503")
                .isEmpty();

        try (NodeProcess node = NodeProcess.start(dataDir(), tmp, "--wal-sync", walSync)) {
            List<String> problems =
                    AckedWrites.differences(new NodeClient(node), writes.expected(), writes.uncertainKeys());
            assertThat(problems)
                    .as(
                            "seed %d, %d acknowledged ops, %d keys checked; restarted node's stderr:\n%s",
                            seed, writes.ackedOps(), writes.expected().size(), node.stderr())
                    .isEmpty();
        }
    }

    @Test
    void sigkillDuringFlushesAndCompactionsLosesNothingAcknowledged() throws Exception {
        long seed = System.nanoTime();
        long target = (16L + new Random(seed).nextInt(16)) << 20;
        AckedWrites writes;
        String firstRunStderr;
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp, "--memtable-size", "1m")) {
            writes = new AckedWrites(new NodeClient(node), 4, 2_048, 16_384, 10, seed);
            writes.start();
            assertThat(writes.awaitAckedBytes(target, Duration.ofMinutes(2)))
                    .as("%d bytes acknowledged within 120 s; stderr:\n%s", target, node.stderr())
                    .isTrue();
            node.sigkill();
            writes.awaitWritersStopped(Duration.ofSeconds(60));
            firstRunStderr = node.stderr();
        }
        System.out.printf(
                "memtable 1m: %d ops (%d bytes) acknowledged before SIGKILL (seed %d)%n",
                writes.ackedOps(), writes.ackedBytes(), seed);
        // the scenario needs flushes and compactions to have been running around the kill
        assertThat(firstRunStderr).contains("flushed memtable").contains("compacted");
        assertThat(writes.unexpectedStatuses())
                .as("answers other than 201/202/503")
                .isEmpty();

        try (NodeProcess node = NodeProcess.start(dataDir(), tmp, "--memtable-size", "1m")) {
            List<String> problems =
                    AckedWrites.differences(new NodeClient(node), writes.expected(), writes.uncertainKeys());
            assertThat(problems)
                    .as(
                            "seed %d, %d acknowledged ops (%d bytes); restarted node's stderr:\n%s",
                            seed, writes.ackedOps(), writes.ackedBytes(), node.stderr())
                    .isEmpty();
        }
    }

    @Test
    void cleanSigtermKeepsEverythingAndAWipedDirectoryStartsEmpty() throws Exception {
        int n = 500;
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp)) {
            NodeClient client = new NodeClient(node);
            for (int i = 0; i < n; i++) {
                assertThat(client.put(sequentialKey(i), sequentialValue(i))).isEqualTo(201);
            }
            for (int i = 0; i < n; i += 10) {
                assertThat(client.delete(sequentialKey(i))).isEqualTo(202);
            }
            assertThat(node.sigterm())
                    .as("exit code after SIGTERM; stderr:\n%s", node.stderr())
                    .isZero();
        }
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp)) {
            NodeClient client = new NodeClient(node);
            for (int i = 0; i < n; i++) {
                NodeClient.Answer got = client.get(sequentialKey(i));
                if (i % 10 == 0) {
                    assertThat(got.status())
                            .as("GET deleted %s", sequentialKey(i))
                            .isEqualTo(404);
                } else {
                    assertThat(got.status()).as("GET %s", sequentialKey(i)).isEqualTo(200);
                    assertThat(got.body()).as("GET %s", sequentialKey(i)).isEqualTo(sequentialValue(i));
                }
            }
            assertThat(client.range("\0", null)).hasSize(n - n / 10);
            assertThat(node.sigterm()).isZero();
        }

        deleteRecursively(dataDir());
        try (NodeProcess node = NodeProcess.start(dataDir(), tmp)) {
            NodeClient client = new NodeClient(node);
            for (int i = 1; i < n; i += 50) {
                assertThat(client.get(sequentialKey(i)).status())
                        .as("GET %s after wipe", sequentialKey(i))
                        .isEqualTo(404);
            }
            assertThat(client.range("\0", null)).isEmpty();
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
