package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with a 128 MiB heap ({@link NodeProcess#HEAP}) holds and serves far more data than its heap:
 * values go to disk, GETs read them back, and range scans stream. Slow (minutes), but part of the
 * default run.
 */
@IntegrationTest
@Tag("slow")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MemoryBudgetTest {

    @TempDir
    Path tmp;

    static final int ENTRIES = 1_000_000;
    static final int VALUE_BYTES = 1_024;
    static final int CONNECTIONS = 8;
    static final int PIPELINE = 32;

    static String key(int i) {
        return String.format("m%07d", i);
    }

    /** 1 KiB, distinct per key: the index, then bytes of any value from a generator seeded with it. */
    static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        new SplittableRandom(i).nextBytes(v);
        ByteBuffer.wrap(v).putInt(i);
        return v;
    }

    @Test
    void millionOneKibValuesThroughA128MibHeap() throws Exception {
        try (NodeProcess node = NodeProcess.start(tmp.resolve("data"), tmp)) {
            long started = System.nanoTime();
            AtomicLong retried = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
            try {
                List<Future<?>> loads = new ArrayList<>();
                int per = ENTRIES / CONNECTIONS;
                for (int c = 0; c < CONNECTIONS; c++) {
                    int from = c * per;
                    int to = c == CONNECTIONS - 1 ? ENTRIES : from + per;
                    loads.add(pool.submit(() -> {
                        try (PipelinedPuts puts = new PipelinedPuts(node.port())) {
                            retried.addAndGet(
                                    puts.putAll(from, to, PIPELINE, MemoryBudgetTest::key, MemoryBudgetTest::value));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : loads) {
                    f.get(4, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            long loadMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
            System.out.printf(
                    "loaded %d x %d B in %d ms over %d pipelined connections (%d retried after 503)%n",
                    ENTRIES, VALUE_BYTES, loadMs, CONNECTIONS, retried.get());
            assertThat(node.isAlive())
                    .as("alive after the load; stderr:\n%s", tail(node))
                    .isTrue();

            NodeClient client = new NodeClient(node);
            Random random = new Random();
            for (int n = 0; n < 1_000; n++) {
                int i = random.nextInt(ENTRIES);
                NodeClient.Answer got = client.get(key(i));
                assertThat(got.status()).as("GET %s", key(i)).isEqualTo(200);
                assertThat(Arrays.equals(got.body(), value(i)))
                        .as("value of %s", key(i))
                        .isTrue();
            }

            started = System.nanoTime();
            int[] expected = {0};
            List<String> wrong = new ArrayList<>();
            long count = client.scan("\0", null, (k, v) -> {
                int i = expected[0]++;
                if (wrong.size() < 10 && (!k.equals(key(i)) || !Arrays.equals(v, value(i)))) {
                    wrong.add("entry " + i + ": key " + k + ", " + v.length + " bytes");
                }
            });
            System.out.printf(
                    "scanned %d entries in %d ms%n",
                    count, Duration.ofNanos(System.nanoTime() - started).toMillis());
            assertThat(wrong).as("entries out of place or with wrong values").isEmpty();
            assertThat(count).isEqualTo(ENTRIES);

            assertThat(node.isAlive()).as("alive after the scan").isTrue();
            assertThat(node.stderr()).doesNotContain("OutOfMemoryError");
        }
    }

    @Test
    void fourHundredMibRangeStreamsThroughA128MibHeap() throws Exception {
        int entries = 400;
        int size = 1 << 20;
        try (NodeProcess node = NodeProcess.start(tmp.resolve("data"), tmp)) {
            NodeClient client = new NodeClient(node);
            for (int i = 0; i < entries; i++) {
                int status = client.put(bigKey(i), bigValue(i, size));
                assertThat(status)
                        .as("PUT %s; node stderr:\n%s", bigKey(i), status == 201 ? "" : tail(node))
                        .isEqualTo(201);
            }
            int[] seen = {0};
            List<String> wrong = new ArrayList<>();
            long count = client.scan("big/", "big0", (k, v) -> {
                int i = seen[0]++;
                if (wrong.size() < 10 && (!k.equals(bigKey(i)) || !Arrays.equals(v, bigValue(i, size)))) {
                    wrong.add("entry " + i + ": key " + k + ", " + v.length + " bytes");
                }
            });
            assertThat(wrong).isEmpty();
            assertThat(count).isEqualTo(entries);
            assertThat(node.isAlive())
                    .as("alive after the scan; stderr:\n%s", tail(node))
                    .isTrue();
            assertThat(node.stderr()).doesNotContain("OutOfMemoryError");
        }
    }

    @Test
    void sixteenMibValuesThroughA128MibHeapAndARestart() throws Exception {
        int entries = 24;
        int size = 16 << 20; // the largest body a node takes by default
        Path data = tmp.resolve("data16");
        try (NodeProcess node = NodeProcess.start(data, tmp)) {
            NodeClient client = new NodeClient(node);
            for (int i = 0; i < entries; i++) {
                int status = client.put(hugeKey(i), bigValue(i, size));
                assertThat(status)
                        .as("PUT %s; node stderr:\n%s", hugeKey(i), status == 201 ? "" : tail(node))
                        .isEqualTo(201);
            }
            for (int i : new int[] {0, 7, entries - 1}) {
                NodeClient.Answer got = client.get(hugeKey(i));
                assertThat(got.status()).isEqualTo(200);
                assertThat(Arrays.equals(got.body(), bigValue(i, size)))
                        .as("value of %s", hugeKey(i))
                        .isTrue();
            }
            assertThat(node.stderr()).doesNotContain("OutOfMemoryError").doesNotContain("OutOfDirectMemoryError");
            node.sigkill(); // the last values are only in the WAL: recovery replays 16 MiB records
        }
        try (NodeProcess node = NodeProcess.start(data, tmp)) {
            NodeClient client = new NodeClient(node);
            for (int i = 0; i < entries; i++) {
                NodeClient.Answer got = client.get(hugeKey(i));
                assertThat(got.status())
                        .as("GET %s after the restart", hugeKey(i))
                        .isEqualTo(200);
                assertThat(Arrays.equals(got.body(), bigValue(i, size)))
                        .as("value of %s", hugeKey(i))
                        .isTrue();
            }
            assertThat(node.stderr()).doesNotContain("OutOfMemoryError");
        }
    }

    static String hugeKey(int i) {
        return String.format("huge/%02d", i);
    }

    static String bigKey(int i) {
        return String.format("big/%04d", i);
    }

    static byte[] bigValue(int i, int size) {
        byte[] v = new byte[size];
        new SplittableRandom(1_000_000L + i).nextBytes(v);
        ByteBuffer.wrap(v).putInt(i);
        return v;
    }

    private static String tail(NodeProcess node) {
        String s = node.stderr();
        return s.length() <= 20_000 ? s : "...\n" + s.substring(s.length() - 20_000);
    }
}
