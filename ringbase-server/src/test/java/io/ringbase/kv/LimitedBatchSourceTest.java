package io.ringbase.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A page of {@code limit} entries: cut inside a batch, the next start, and the source left alone after. */
class LimitedBatchSourceTest {

    /** Batches of {@code batchSize} entries k00, k01, ...; counts the batches asked and the closes. */
    private static final class Batches implements EntryBatchSource {
        final List<Entry> entries = new ArrayList<>();
        final int batchSize;
        final AtomicInteger asked = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        int next;

        Batches(int count, int batchSize) {
            for (int i = 0; i < count; i++) {
                entries.add(Entry.value(Keys.utf8("k%02d".formatted(i)), 1, new byte[1]));
            }
            this.batchSize = batchSize;
        }

        @Override
        public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
            asked.incrementAndGet();
            List<Entry> batch = List.copyOf(entries.subList(next, Math.min(entries.size(), next + batchSize)));
            next += batch.size();
            return CompletableFuture.completedFuture(batch);
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void aFullPageIsCutInsideABatchAndResumesAfterItsLastKey() {
        Batches source = new Batches(20, 4);
        LimitedBatchSource page = new LimitedBatchSource(source, 6);
        assertThat(page.nextBatch(1000).join()).hasSize(4);
        assertThat(page.resumeKey()).isNull();
        List<Entry> second = page.nextBatch(1000).join();
        assertThat(second).extracting(e -> Keys.toDisplay(e.key())).containsExactly("k04", "k05");
        assertThat(page.nextBatch(1000).join()).isEmpty();
        assertThat(source.asked).hasValue(2); // not asked again once the page is full
        assertThat(page.resumeKey()).isEqualTo(new byte[] {'k', '0', '5', 0});
        page.close();
        assertThat(source.closes).hasValue(1);
    }

    @Test
    void aRangeThatEndsBeforeTheLimitHasNoNextStart() {
        LimitedBatchSource page = new LimitedBatchSource(new Batches(5, 4), 6);
        assertThat(page.nextBatch(1000).join()).hasSize(4);
        assertThat(page.nextBatch(1000).join()).hasSize(1);
        assertThat(page.nextBatch(1000).join()).isEmpty();
        assertThat(page.resumeKey()).isNull();
    }

    @Test
    void aPageOfExactlyTheRestStillGivesANextStart() {
        // a full page cannot know whether more follows: the next page may be empty
        LimitedBatchSource page = new LimitedBatchSource(new Batches(4, 4), 4);
        assertThat(page.nextBatch(1000).join()).hasSize(4);
        assertThat(page.nextBatch(1000).join()).isEmpty();
        assertThat(page.resumeKey()).isEqualTo(new byte[] {'k', '0', '3', 0});
    }

    @Test
    void aLimitBelowOneIsRefused() {
        assertThatThrownBy(() -> new LimitedBatchSource(new Batches(1, 1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit must be at least 1, got 0");
    }
}
