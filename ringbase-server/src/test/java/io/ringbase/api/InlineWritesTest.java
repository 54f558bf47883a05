package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.WriteBatch;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.TcpSockets;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A single node's PUTs and DELETEs on an event loop are staged and applied together after the loop's
 * pass ({@link InlineWrites}): answered only once applied, in order per connection, with the batch's
 * error if it fails, and on a worker if the engine declines them.
 */
@IntegrationTest
@Timeout(60)
class InlineWritesTest {

    /** Records each batch; can hold the event loop in the first one, fail batches, or decline keys. */
    static final class BatchingEngine extends InlineRequestsTest.RecordingEngine {
        final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
        final List<String> batchThreads = new CopyOnWriteArrayList<>();
        final CountDownLatch holdFirst = new CountDownLatch(1);
        final CountDownLatch firstArrived = new CountDownLatch(1);
        volatile boolean holdTheFirstBatch;
        volatile IOException failBatches;
        volatile String declinePrefix;

        @Override
        public boolean tryApplyAll(WriteBatch batch) throws IOException {
            batchSizes.add(batch.size() - batch.applied());
            batchThreads.add(Thread.currentThread().getName());
            if (holdTheFirstBatch && firstArrived.getCount() > 0) {
                firstArrived.countDown();
                try {
                    holdFirst.await(20, TimeUnit.SECONDS); // the event loop waits: others' requests pile up
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (failBatches != null) {
                throw failBatches;
            }
            return super.tryApplyAll(batch);
        }

        @Override
        public boolean tryApply(byte[] key, long version, long expiresAtMs, java.lang.foreign.MemorySegment value)
                throws IOException {
            String prefix = declinePrefix;
            if (prefix != null && new String(key, StandardCharsets.UTF_8).startsWith(prefix)) {
                threads.add("declined " + Thread.currentThread().getName());
                return false;
            }
            return super.tryApply(key, version, expiresAtMs, value);
        }
    }

    private static byte[] put(String key, String value, boolean close) {
        return ("PUT /v0/entity?id=" + key + " HTTP/1.1\r\nHost: t\r\nContent-Length: " + value.length() + "\r\n"
                        + (close ? "Connection: close\r\n" : "") + "\r\n" + value)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Bytes {@code s} has sent that its peer has not acknowledged ({@link TcpSockets}), -1 if it has none. */
    private static long unacknowledgedBytes(Socket s) {
        return TcpSockets.all().stream()
                .filter(t -> t.localPort() == s.getLocalPort() && t.remotePort() == s.getPort())
                .mapToLong(TcpSockets.Socket::unacknowledgedBytes)
                .findFirst()
                .orElse(-1);
    }

    private static String readAll(Socket s) throws IOException {
        s.setSoTimeout(20_000);
        InputStream in = s.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }

    @Test
    void pipelinedWritesOfOneConnectionAreAnsweredInOrderAndAReadAfterThemSeesTheLast() throws Exception {
        BatchingEngine engine = new BatchingEngine();
        try (ServerFixture http = new ServerFixture(engine);
                Socket s = new Socket("127.0.0.1", http.port)) {
            OutputStream out = s.getOutputStream();
            for (int i = 0; i < 5; i++) {
                out.write(put("p", "v" + i, false));
            }
            out.write(("DELETE /v0/entity?id=gone HTTP/1.1\r\nHost: t\r\n\r\n"
                            + "GET /v0/entity?id=p HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String responses = readAll(s);
            List<String> statusLines = new ArrayList<>();
            for (String line : responses.split("\r\n")) {
                if (line.startsWith("HTTP/1.1 ")) {
                    statusLines.add(line);
                }
            }
            assertThat(statusLines)
                    .containsExactly(
                            "HTTP/1.1 201 Created",
                            "HTTP/1.1 201 Created",
                            "HTTP/1.1 201 Created",
                            "HTTP/1.1 201 Created",
                            "HTTP/1.1 201 Created",
                            "HTTP/1.1 202 Accepted",
                            "HTTP/1.1 200 OK");
            assertThat(responses).endsWith("\r\n\r\nv4");
            // one connection has one write in flight: each was its own batch, on the event loop
            assertThat(engine.batchSizes).containsExactly(1, 1, 1, 1, 1, 1);
            assertThat(engine.batchThreads).allSatisfy(t -> assertThat(t).contains("ringbase-http-io"));
        }
    }

    @Test
    void writesOfManyConnectionsReadInOnePassShareABatch() throws Exception {
        BatchingEngine engine = new BatchingEngine();
        engine.holdTheFirstBatch = true;
        List<Socket> sockets = new ArrayList<>();
        try (ServerFixture http = new ServerFixture(engine)) {
            Socket first = new Socket("127.0.0.1", http.port);
            sockets.add(first);
            first.getOutputStream().write(put("first", "x", true));
            assertThat(engine.firstArrived.await(10, TimeUnit.SECONDS)).isTrue(); // the loop is held in its batch
            for (int i = 0; i < 20; i++) {
                Socket s = new Socket("127.0.0.1", http.port);
                sockets.add(s);
                s.getOutputStream().write(put("k" + i, "v" + i, true));
            }
            // until all 20 requests are in the server's socket buffers: the server's kernel has acknowledged them
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> sockets.stream().allMatch(s -> unacknowledgedBytes(s) == 0));
            engine.holdFirst.countDown();
            for (Socket s : sockets) {
                assertThat(readAll(s)).startsWith("HTTP/1.1 201 Created");
            }
            for (int i = 0; i < 20; i++) {
                assertThat(http.get("/v0/entity?id=k" + i).body())
                        .isEqualTo(("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            assertThat(engine.batchSizes.stream().mapToInt(Integer::intValue).sum())
                    .isEqualTo(21);
            assertThat(engine.batchSizes.size()).isLessThan(21); // some of the 20 were written together
            assertThat(engine.batchSizes.stream()
                            .mapToInt(Integer::intValue)
                            .max()
                            .orElseThrow())
                    .isGreaterThan(1);
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void aFailedBatchAnswersEachOfItsWritesWithTheErrorAndWritesNothing() throws Exception {
        BatchingEngine engine = new BatchingEngine();
        engine.failBatches = new io.ringbase.storage.StorageFaultException(
                "WAL append to wal-1.log", new IOException("Input/output error"));
        try (ServerFixture http = new ServerFixture(engine)) {
            var response = http.put("/v0/entity?id=k", new byte[] {1});
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("retry-after")).contains("1");
            assertThat(new String(response.body(), StandardCharsets.UTF_8)).contains("Input/output error");
            assertThat(http.delete("/v0/entity?id=k").statusCode()).isEqualTo(503);
            engine.failBatches = null;
            assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(404);
            assertThat(http.put("/v0/entity?id=k", new byte[] {2}).statusCode())
                    .isEqualTo(201); // the connection goes on
            assertThat(http.get("/v0/entity?id=k").body()).containsExactly(2);
        }
    }

    @Test
    void writesTheEngineDeclinesInABatchAreWrittenOnAWorker() throws Exception {
        BatchingEngine engine = new BatchingEngine();
        engine.declinePrefix = "slow";
        try (ServerFixture http = new ServerFixture(engine)) {
            assertThat(http.put("/v0/entity?id=slow1", new byte[] {7}).statusCode())
                    .isEqualTo(201);
            assertThat(http.put("/v0/entity?id=fast", new byte[] {8}).statusCode())
                    .isEqualTo(201);
            assertThat(http.get("/v0/entity?id=slow1").body()).containsExactly(7);
            assertThat(http.get("/v0/entity?id=fast").body()).containsExactly(8);
            List<String> writes =
                    engine.threads.stream().filter(t -> !t.startsWith("get ")).toList();
            assertThat(writes).hasSize(3);
            assertThat(writes.get(0)).startsWith("declined ").contains("ringbase-http-io");
            assertThat(writes.get(1)).startsWith("apply ").contains("ringbase-http-worker");
            assertThat(writes.get(2)).startsWith("apply ").contains("ringbase-http-io");
        }
    }

    @Test
    void aBadWriteIsAnsweredAtOnceAndStagesNothing() throws Exception {
        BatchingEngine engine = new BatchingEngine();
        try (ServerFixture http = new ServerFixture(engine)) {
            assertThat(http.put("/v0/entity?id=", new byte[] {1}).statusCode()).isEqualTo(400);
            assertThat(http.put("/v0/entity?id=k&ack=2&from=2", new byte[] {1}).statusCode())
                    .isEqualTo(400);
            assertThat(http.put("/v0/entity?id=k&ttl=bogus", new byte[] {1}).statusCode())
                    .isEqualTo(400);
            assertThat(engine.batchSizes).isEmpty();
        }
    }
}
