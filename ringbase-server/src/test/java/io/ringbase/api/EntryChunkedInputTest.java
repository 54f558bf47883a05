package io.ringbase.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The range body over an asynchronous source whose batches the test completes by hand. */
class EntryChunkedInputTest {

    private final ExecutorService workers = Executors.newSingleThreadExecutor();
    private final ByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;

    @AfterEach
    void stop() {
        workers.shutdownNow();
    }

    /** Hands out futures that the test completes; counts closes and checks none happens mid-batch. */
    private static final class DeferredSource implements EntryBatchSource {
        final LinkedBlockingQueue<CompletableFuture<List<Entry>>> asked = new LinkedBlockingQueue<>();
        final AtomicInteger closes = new AtomicInteger();
        final AtomicInteger outstanding = new AtomicInteger();
        volatile boolean closedWhileOutstanding;

        @Override
        public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
            outstanding.incrementAndGet();
            CompletableFuture<List<Entry>> f = new CompletableFuture<>();
            asked.add(f);
            return f.whenComplete((b, t) -> outstanding.decrementAndGet());
        }

        CompletableFuture<List<Entry>> nextAsked() throws InterruptedException {
            CompletableFuture<List<Entry>> f = asked.poll(5, TimeUnit.SECONDS);
            assertThat(f).as("a batch was asked for").isNotNull();
            return f;
        }

        @Override
        public void close() {
            if (outstanding.get() > 0) {
                closedWhileOutstanding = true;
            }
            closes.incrementAndGet();
        }
    }

    private static Entry v(String key, String value) {
        return Entry.value(Keys.utf8(key), 1, Keys.utf8(value));
    }

    private static String text(ByteBuf b) {
        try {
            return b.toString(UTF_8);
        } finally {
            b.release();
        }
    }

    @Test
    void chunksFollowBatchesCompletedLaterAndAnEmptyBatchEndsTheBody() throws Exception {
        DeferredSource source = new DeferredSource();
        EntryChunkedInput input = new EntryChunkedInput(source, RangeFormat.CHUNKS, false, workers, alloc);
        Semaphore resumes = new Semaphore(0);
        input.bind(null, resumes::release);
        input.prefetch();
        assertThat(input.readChunk(alloc))
                .as("nothing before the batch arrives")
                .isNull();
        assertThat(input.isEndOfInput()).isFalse();
        source.nextAsked().complete(List.of(v("a", "1"), v("b", "2")));
        assertThat(resumes.tryAcquire()).as("the writer is resumed").isTrue();
        assertThat(text(input.readChunk(alloc))).isEqualTo("a\n1");
        assertThat(source.asked).as("no refill while a chunk is ready").isEmpty();
        assertThat(text(input.readChunk(alloc))).isEqualTo("b\n2");
        assertThat(input.readChunk(alloc)).isNull(); // starts the next refill on a worker
        source.nextAsked().complete(List.of());
        // the worker may register its callback after the test completed the future: wait for the resume
        assertThat(resumes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(input.isEndOfInput()).isTrue();
        input.close();
        input.close();
        assertThat(source.closes).hasValue(1);
    }

    @Test
    void closeWithABatchInFlightClosesTheSourceOnceAfterItArrives() throws Exception {
        DeferredSource source = new DeferredSource();
        EntryChunkedInput input = new EntryChunkedInput(source, RangeFormat.CHUNKS, false, workers, alloc);
        input.bind(null, () -> {});
        input.prefetch();
        CompletableFuture<List<Entry>> inFlight = source.nextAsked();
        input.close();
        assertThat(source.closes).as("not while the batch is outstanding").hasValue(0);
        inFlight.complete(List.of(v("a", "1")));
        assertThat(source.closes).hasValue(1);
        assertThat(source.closedWhileOutstanding).isFalse();
        input.close();
        assertThat(source.closes).hasValue(1);
        assertThat(input.readChunk(alloc)).isNull();
    }

    @Test
    void aFailedBatchSurfacesAsIOExceptionSoTheResponseIsAborted() throws Exception {
        DeferredSource source = new DeferredSource();
        EntryChunkedInput input = new EntryChunkedInput(source, RangeFormat.CHUNKS, false, workers, alloc);
        Semaphore resumes = new Semaphore(0);
        input.bind(null, resumes::release);
        input.prefetch();
        source.nextAsked().complete(List.of(v("a", "1")));
        assertThat(text(input.readChunk(alloc))).isEqualTo("a\n1");
        assertThat(input.readChunk(alloc)).isNull();
        source.nextAsked().completeExceptionally(new IllegalStateException("replica 2 went away"));
        assertThat(resumes.tryAcquire(2, 5, TimeUnit.SECONDS))
                .as("resumed by the batch and the failure")
                .isTrue();
        assertThatThrownBy(() -> input.readChunk(alloc))
                .isInstanceOf(IOException.class)
                .hasRootCauseMessage("replica 2 went away");
        assertThatThrownBy(input::isEndOfInput).isInstanceOf(IOException.class);
        input.close();
        assertThat(source.closes).hasValue(1);
    }
}
