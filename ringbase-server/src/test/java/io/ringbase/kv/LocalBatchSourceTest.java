package io.ringbase.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LocalBatchSourceTest {

    private static final class Counted implements CloseableIterator<Entry> {
        final Iterator<Entry> it;
        final AtomicInteger closes = new AtomicInteger();

        Counted(List<Entry> entries) {
            it = entries.iterator();
        }

        @Override
        public boolean hasNext() {
            return it.hasNext();
        }

        @Override
        public Entry next() {
            return it.next();
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void batchesStopAfterTheEntryThatReachesTheBudgetAndEndEmpty() {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            entries.add(Entry.value(Keys.utf8("k" + i), 1, new byte[8])); // 2 + 1 + 8 = 11 bytes each
        }
        Counted it = new Counted(entries);
        LocalBatchSource source = new LocalBatchSource(it);
        CompletableFutureAssert.done(source.nextBatch(22), 2);
        CompletableFutureAssert.done(source.nextBatch(23), 3);
        CompletableFutureAssert.done(source.nextBatch(1), 1); // one entry even over budget
        CompletableFutureAssert.done(source.nextBatch(1000), 4);
        CompletableFutureAssert.done(source.nextBatch(1000), 0);
        source.close();
        source.close();
        assertThat(it.closes).hasValue(1);
        assertThat(source.nextBatch(1)).isCompletedExceptionally();
    }

    @Test
    void anIteratorFailureFailsTheBatch() {
        CloseableIterator<Entry> broken = CloseableIterator.of(new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Entry next() {
                throw new IllegalStateException("corrupt block");
            }
        });
        try (LocalBatchSource source = new LocalBatchSource(broken)) {
            assertThat(source.nextBatch(100)).isCompletedExceptionally();
        }
    }

    @Test
    void emptySourceEndsAtOnce() {
        try (LocalBatchSource source = LocalBatchSource.empty()) {
            CompletableFutureAssert.done(source.nextBatch(100), 0);
        }
    }

    private static final class CompletableFutureAssert {
        static void done(java.util.concurrent.CompletableFuture<List<Entry>> f, int size) {
            assertThat(f).isCompleted();
            assertThat(f.getNow(null)).hasSize(size);
        }
    }
}
