package io.ringbase.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** 503 when the worker pool is full, engine failures, and graceful close. */
@IntegrationTest
class OverloadAndShutdownTest {

    /** An engine whose {@code get} blocks until {@link #release} is counted down. */
    static final class BlockingEngine extends InMemoryEngine {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger entered = new AtomicInteger();

        @Override
        public Entry get(byte[] key) throws IOException {
            entered.incrementAndGet();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.get(key);
        }
    }

    /** Every request on the single worker (no inline point requests), so the worker queue is what is tested. */
    private static HttpServerConfig oneWorkerOneSlot() {
        return HttpServerConfig.defaults(0)
                .withHost("127.0.0.1")
                .withWorkers(1, 1)
                .withInlinePointRequests(false);
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) {
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(condition::getAsBoolean);
        assertThat(condition.getAsBoolean()).isTrue();
    }

    @Test
    void fullQueueGives503WithRetryAfterAndServerRecovers() throws Exception {
        BlockingEngine engine = new BlockingEngine();
        try (ServerFixture http = new ServerFixture(oneWorkerOneSlot(), engine)) {
            int n = 6;
            List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                HttpRequest req = HttpRequest.newBuilder(http.uri("/v0/entity?id=k" + i))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build();
                futures.add(http.client.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()));
            }
            // one request runs (blocked), one waits in the queue, the other four are refused at once
            awaitTrue(() -> futures.stream().filter(CompletableFuture::isDone).count() == n - 2);
            List<HttpResponse<byte[]>> refused = futures.stream()
                    .filter(CompletableFuture::isDone)
                    .map(CompletableFuture::join)
                    .toList();
            assertThat(refused).allSatisfy(r -> {
                assertThat(r.statusCode()).isEqualTo(503);
                assertThat(r.headers().firstValue("retry-after")).hasValue("1");
            });
            assertThat(engine.entered.get()).isEqualTo(1);

            engine.release.countDown();
            long served = futures.stream()
                    .map(CompletableFuture::join)
                    .filter(r -> r.statusCode() == 404)
                    .count();
            assertThat(served).isEqualTo(2);
            assertThat(http.put("/v0/entity?id=after", new byte[] {7}).statusCode())
                    .isEqualTo(201);
            assertThat(http.get("/v0/entity?id=after").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void storeBusyIs503AndOtherIoErrorsAre500() throws Exception {
        InMemoryEngine engine = new InMemoryEngine() {
            @Override
            public void apply(Entry entry) throws IOException {
                if (new String(entry.key(), UTF_8).equals("busy")) {
                    throw new StoreBusyException("flush behind");
                }
                throw new IOException("disk on fire");
            }
        };
        try (ServerFixture http = new ServerFixture(engine)) {
            HttpResponse<byte[]> busy = http.put("/v0/entity?id=busy", new byte[1]);
            assertThat(busy.statusCode()).isEqualTo(503);
            assertThat(busy.headers().firstValue("retry-after")).hasValue("1");
            HttpResponse<byte[]> broken = http.delete("/v0/entity?id=x");
            assertThat(broken.statusCode()).isEqualTo(500);
            assertThat(new String(broken.body(), UTF_8)).doesNotContain("fire"); // no internals leak out
        }
    }

    @Test
    void closeLetsAnInFlightRequestFinish() throws Exception {
        BlockingEngine engine = new BlockingEngine();
        engine.apply(Entry.value("k".getBytes(UTF_8), 1, "v".getBytes(UTF_8)));
        ServerFixture http = new ServerFixture(engine);
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n");
            awaitTrue(() -> engine.entered.get() == 1);

            CompletableFuture<Void> closing = CompletableFuture.runAsync(http.server::close);
            // the listener goes away at once, while the request is still in the engine
            awaitTrue(() -> {
                try (Socket _ = new Socket("127.0.0.1", http.port)) {
                    return false;
                } catch (ConnectException e) {
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            assertThat(closing).isNotDone();
            engine.release.countDown();

            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("v");
            assertThat(r.header("connection")).isEqualTo("close");
            closing.get(15, TimeUnit.SECONDS);
            assertThat(raw.closedByServer()).isTrue();
        } finally {
            http.close(); // idempotent
        }
    }

    @Test
    void closeDoesNotCloseTheEngine() throws Exception {
        AtomicInteger engineCloses = new AtomicInteger();
        InMemoryEngine engine = new InMemoryEngine() {
            @Override
            public void close() {
                engineCloses.incrementAndGet();
            }
        };
        new ServerFixture(engine).close();
        assertThat(engineCloses).hasValue(0);
    }
}
