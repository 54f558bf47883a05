package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which thread serves a request: point requests on the event loop unless a write may block. */
@IntegrationTest
class InlineRequestsTest {

    /** Records the thread of every engine call; {@code apply} blocks until released when asked to. */
    static class RecordingEngine extends InMemoryEngine {
        final List<String> threads = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean blockWrites;
        volatile boolean writesMayBlock;
        /** Decline every write that asks not to wait, although writeMayBlock said no (a stall just began). */
        volatile boolean declineTryApply;

        @Override
        public boolean tryApply(byte[] key, long version, long expiresAtMs, java.lang.foreign.MemorySegment value)
                throws IOException {
            if (declineTryApply) {
                threads.add("declined " + Thread.currentThread().getName());
                return false;
            }
            return super.tryApply(key, version, expiresAtMs, value);
        }

        /** Decline every read that asks not to wait, as for a table out of the page cache. */
        volatile boolean declineTryRead;

        @Override
        public TryRead tryRead(byte[] key, io.ringbase.storage.ReadCursor cursor) throws IOException {
            if (declineTryRead) {
                threads.add("declined read " + Thread.currentThread().getName());
                cursor.close();
                return TryRead.WOULD_WAIT;
            }
            return super.tryRead(key, cursor);
        }

        @Override
        public void apply(Entry entry) throws IOException {
            threads.add("apply " + Thread.currentThread().getName());
            if (blockWrites) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            super.apply(entry);
        }

        @Override
        public Entry get(byte[] key) throws IOException {
            threads.add("get " + Thread.currentThread().getName());
            return super.get(key);
        }

        @Override
        public boolean writeMayBlock() {
            return writesMayBlock;
        }
    }

    @Test
    void pointRequestsRunOnTheEventLoopWhenWritesDoNotBlock() throws Exception {
        RecordingEngine engine = new RecordingEngine();
        try (ServerFixture http = new ServerFixture(engine)) {
            assertThat(http.put("/v0/entity?id=k", new byte[] {1}).statusCode()).isEqualTo(201);
            assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(200);
            assertThat(http.delete("/v0/entity?id=k").statusCode()).isEqualTo(202);
            assertThat(engine.threads).hasSize(3).allSatisfy(t -> assertThat(t).contains("ringbase-http-io"));
        }
    }

    @Test
    void writesThatMayBlockRunOnWorkersAndReadsStayInline() throws Exception {
        RecordingEngine engine = new RecordingEngine();
        engine.writesMayBlock = true;
        try (ServerFixture http = new ServerFixture(engine)) {
            assertThat(http.put("/v0/entity?id=k", new byte[] {1}).statusCode()).isEqualTo(201);
            assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(200);
            assertThat(engine.threads).hasSize(2);
            assertThat(engine.threads.get(0)).startsWith("apply ").contains("ringbase-http-worker");
            assertThat(engine.threads.get(1)).startsWith("get ").contains("ringbase-http-io");
        }
    }

    @Test
    void aBlockedWriteOnAWorkerDoesNotHoldUpReads() throws Exception {
        RecordingEngine engine = new RecordingEngine();
        engine.writesMayBlock = true;
        engine.blockWrites = true;
        try (ServerFixture http = new ServerFixture(engine)) {
            HttpRequest put = HttpRequest.newBuilder(http.uri("/v0/entity?id=slow"))
                    .timeout(Duration.ofSeconds(30))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[] {1}))
                    .build();
            CompletableFuture<HttpResponse<byte[]>> pending =
                    http.client.sendAsync(put, HttpResponse.BodyHandlers.ofByteArray());
            for (int i = 0; i < 20; i++) {
                assertThat(http.get("/v0/entity?id=other" + i).statusCode()).isEqualTo(404);
            }
            assertThat(pending).isNotDone();
            engine.release.countDown();
            assertThat(pending.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        }
    }

    @Test
    void withInliningOffEveryRequestRunsOnAWorker() throws Exception {
        RecordingEngine engine = new RecordingEngine();
        HttpServerConfig config =
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withInlinePointRequests(false);
        try (ServerFixture http = new ServerFixture(config, engine)) {
            assertThat(http.put("/v0/entity?id=k", new byte[] {1}).statusCode()).isEqualTo(201);
            assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(200);
            assertThat(engine.threads).hasSize(2).allSatisfy(t -> assertThat(t).contains("ringbase-http-worker"));
        }
    }

    @Test
    void aWriteTheEngineDeclinesOnTheEventLoopIsRunAgainOnAWorker() throws Exception {
        // writeMayBlock says no, but a stall begins before the write runs: the event loop must not wait
        RecordingEngine engine = new RecordingEngine();
        engine.declineTryApply = true;
        try (ServerFixture http = new ServerFixture(engine)) {
            assertThat(http.put("/v0/entity?id=k", new byte[] {1}).statusCode()).isEqualTo(201);
            byte[] entry = io.ringbase.cluster.rpc.InternalProtocol.encode(
                    List.of(Entry.value("r".getBytes(java.nio.charset.StandardCharsets.UTF_8), 7, new byte[] {2})));
            assertThat(http.send("PUT", io.ringbase.cluster.rpc.InternalProtocol.ENTRY, entry)
                            .statusCode())
                    .isEqualTo(201);
            List<String> writes =
                    engine.threads.stream().filter(t -> !t.startsWith("get ")).toList();
            assertThat(writes).hasSize(4);
            assertThat(writes.get(0)).startsWith("declined ").contains("ringbase-http-io");
            assertThat(writes.get(1)).startsWith("apply ").contains("ringbase-http-worker");
            assertThat(writes.get(2)).startsWith("declined ").contains("ringbase-http-io");
            assertThat(writes.get(3)).startsWith("apply ").contains("ringbase-http-worker");
            assertThat(engine.get("r".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                            .version())
                    .isEqualTo(7);
        }
    }

    @Test
    void aReadThatWouldWaitForTheDiskIsServedByAWorker() throws Exception {
        RecordingEngine engine = new RecordingEngine();
        try (ServerFixture http = new ServerFixture(engine)) {
            assertThat(http.put("/v0/entity?id=k", new byte[] {1, 2, 3}).statusCode())
                    .isEqualTo(201);
            engine.declineTryRead = true;
            HttpResponse<byte[]> found = http.get("/v0/entity?id=k");
            assertThat(found.statusCode()).isEqualTo(200);
            assertThat(found.body()).containsExactly(1, 2, 3);
            assertThat(http.get("/v0/entity?id=missing").statusCode()).isEqualTo(404);
            List<String> reads =
                    engine.threads.stream().filter(t -> !t.startsWith("apply ")).toList();
            assertThat(reads).hasSize(4);
            assertThat(reads.get(0)).startsWith("declined read ").contains("ringbase-http-io");
            assertThat(reads.get(1)).startsWith("get ").contains("ringbase-http-worker");
            assertThat(reads.get(2)).startsWith("declined read ").contains("ringbase-http-io");
            assertThat(reads.get(3)).startsWith("get ").contains("ringbase-http-worker");
        }
    }

    @Test
    void aReplicaReadThatWouldWaitForTheDiskIsServedByAWorker() throws Exception {
        RecordingEngine engine = new RecordingEngine();
        byte[] key = "r".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        engine.apply(Entry.value(key, 7, new byte[] {2}));
        engine.threads.clear();
        engine.declineTryRead = true;
        try (ServerFixture http = new ServerFixture(engine)) {
            String path = io.ringbase.cluster.rpc.InternalProtocol.ENTRY + "?id="
                    + io.ringbase.cluster.rpc.InternalProtocol.hex(key);
            HttpResponse<byte[]> single = http.get(path);
            assertThat(single.statusCode()).isEqualTo(200);
            assertThat(io.ringbase.cluster.rpc.InternalProtocol.decode(single.body()))
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.version()).isEqualTo(7);
                        assertThat(e.value()).containsExactly(2);
                    });
            byte[] batch = io.ringbase.cluster.rpc.ReplicaBatch.encodeOps(List.of(
                    new io.ringbase.cluster.rpc.ReplicaBatch.QueryVersion(key),
                    new io.ringbase.cluster.rpc.ReplicaBatch.Read(key)));
            HttpResponse<byte[]> r = http.send("POST", io.ringbase.cluster.rpc.InternalProtocol.BATCH, batch);
            assertThat(r.statusCode()).isEqualTo(200);
            List<io.ringbase.cluster.rpc.ReplicaBatch.Result> results =
                    io.ringbase.cluster.rpc.ReplicaBatch.decodeResults(r.body(), 2);
            assertThat(results.get(0)).isEqualTo(new io.ringbase.cluster.rpc.ReplicaBatch.Written(7));
            assertThat(results.get(1))
                    .isInstanceOfSatisfying(
                            io.ringbase.cluster.rpc.ReplicaBatch.Found.class,
                            f -> assertThat(f.entry().version()).isEqualTo(7));
            // each request was declined on the event loop, then read on a worker
            assertThat(engine.threads.get(0)).startsWith("declined read ").contains("ringbase-http-io");
            assertThat(engine.threads.get(1)).startsWith("get ").contains("ringbase-http-worker");
            assertThat(engine.threads.get(2)).startsWith("declined read ").contains("ringbase-http-io");
            assertThat(engine.threads.subList(3, engine.threads.size()))
                    .isNotEmpty()
                    .allSatisfy(t -> assertThat(t).contains("ringbase-http-worker"));
        }
    }
}
