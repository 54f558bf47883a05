package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A range request whose client goes away (half-closes: the server reads EOF and closes the connection)
 * before the response starts: the request still ends, once, so the server's count of requests in flight
 * (what {@link RingbaseHttpServer#close()} waits for) goes back to 0, and the scan is closed.
 */
class RangeClientGoneTest {

    /** An engine whose scans wait for {@link #scanMayStart} and say when they are closed. */
    static final class GatedScanEngine extends InMemoryEngine {
        final CountDownLatch scanStarted = new CountDownLatch(1);
        final CountDownLatch scanMayStart = new CountDownLatch(1);
        final AtomicBoolean scanClosed = new AtomicBoolean();

        @Override
        public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) {
            scanStarted.countDown();
            try {
                if (!scanMayStart.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let the scan start");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            CloseableIterator<Entry> entries = super.scan(start, end, liveOnly);
            return new CloseableIterator<>() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public Entry next() {
                    return entries.next();
                }

                @Override
                public void close() {
                    scanClosed.set(true);
                    entries.close();
                }
            };
        }
    }

    @Test
    @Timeout(30)
    void aRangeWhoseConnectionClosedBeforeItsResponseStartsStillEndsAndClosesItsScan() throws Exception {
        GatedScanEngine engine = new GatedScanEngine();
        engine.apply(Entry.value(Keys.utf8("k1"), 1, "v1".getBytes(StandardCharsets.UTF_8)));
        HttpServerConfig config = HttpServerConfig.defaults(0).withHost("127.0.0.1");
        EmbeddedChannel channel = new EmbeddedChannel();
        try (RingbaseHttpServer server = ServerFixture.bare(config, engine)) {
            server.addConnectionHandlers(channel.pipeline());
            // a range runs on a worker, which waits in the scan until the connection is gone
            channel.writeInbound(Unpooled.copiedBuffer(
                    "GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
            assertThat(engine.scanStarted.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(server.inFlight()).isEqualTo(1);

            // the client half-closes: the server reads EOF and closes the connection, which tears its
            // pipeline down (the chunked writer included) before the response could start
            var _ = channel.close();
            engine.scanMayStart.countDown();

            // the embedded loop runs the worker's hand-over in place, so the worker thread ends the request
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(server.inFlight()).as("requests in flight").isZero();
                assertThat(engine.scanClosed).as("the scan is closed").isTrue();
            });
        } finally {
            channel.finishAndReleaseAll(); // after close() has waited for the worker, the channel's last user
        }
    }
}
