package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import io.ringbase.storage.ReadCursor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which thread a coordinator's local read runs on: the caller's, unless it would wait for the disk. */
class LocalReplicaTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    /** Records the thread of every {@code get}; declines every {@code tryRead} when asked to. */
    static final class DecliningEngine extends InMemoryEngine {
        final List<String> gets = new CopyOnWriteArrayList<>();
        volatile boolean declineTryRead;

        @Override
        public TryRead tryRead(byte[] key, ReadCursor cursor) throws IOException {
            if (declineTryRead) {
                cursor.close();
                return TryRead.WOULD_WAIT;
            }
            return super.tryRead(key, cursor);
        }

        @Override
        public Entry get(byte[] key) throws IOException {
            gets.add(Thread.currentThread().getName());
            return super.get(key);
        }
    }

    private final ExecutorService reads = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-blocking-read"));
    private final ExecutorService others = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-other"));

    @AfterEach
    void stop() {
        reads.shutdownNow();
        others.shutdownNow();
    }

    private LocalReplica replica(DecliningEngine engine) {
        return new LocalReplica(new NodeId(0, "127.0.0.1", 1), engine, others, others, reads);
    }

    @Test
    void aReadAndAVersionQueryRunOnTheCallersThreadWhenTheEngineNeedNotWait() throws Exception {
        DecliningEngine engine = new DecliningEngine();
        engine.apply(Entry.value(KEY, 5, new byte[] {1}));
        LocalReplica replica = replica(engine);
        CompletableFuture<Entry> read = replica.read(KEY);
        CompletableFuture<Long> version = replica.version(KEY);
        assertThat(read).isCompleted();
        assertThat(read.getNow(null).version()).isEqualTo(5);

        assertThat(version).isCompletedWithValue(5L);
        assertThat(replica.read("missing".getBytes(StandardCharsets.UTF_8))).isCompletedWithValue(null);
        assertThat(replica.version("missing".getBytes(StandardCharsets.UTF_8)))
                .isCompletedWithValue(Replica.NO_VERSION);
        assertThat(engine.gets)
                .allSatisfy(t -> assertThat(t).isEqualTo(Thread.currentThread().getName()));
    }

    @Test
    void aReadThatWouldWaitForTheDiskRunsOnTheBlockingReadExecutor() throws Exception {
        DecliningEngine engine = new DecliningEngine();
        engine.apply(Entry.value(KEY, 5, new byte[] {1}));
        engine.declineTryRead = true;
        LocalReplica replica = replica(engine);
        Entry found = replica.read(KEY).get(10, TimeUnit.SECONDS);
        assertThat(found.version()).isEqualTo(5);
        assertThat(found.value()).containsExactly(1);
        assertThat(replica.version(KEY).get(10, TimeUnit.SECONDS)).isEqualTo(5L);
        assertThat(replica.read("missing".getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS))
                .isNull();
        assertThat(engine.gets).hasSize(3).allSatisfy(t -> assertThat(t).isEqualTo("test-blocking-read"));
    }

    @Test
    void aReadTheBlockingExecutorRejectsFailsThatRead() throws Exception {
        DecliningEngine engine = new DecliningEngine();
        engine.declineTryRead = true;
        reads.shutdown(); // rejects every task from now on
        CompletableFuture<Entry> read = replica(engine).read(KEY);
        assertThat(read).isCompletedExceptionally();
        assertThat(engine.gets).isEmpty();
    }

    @Test
    void tryGetAnswersWouldWaitWithoutReading() throws Exception {
        DecliningEngine engine = new DecliningEngine();
        engine.apply(Entry.value(KEY, 5, new byte[] {1}));
        assertThat(LocalReplica.tryGet(engine, KEY).version()).isEqualTo(5);
        assertThat(LocalReplica.tryVersionOf(engine, KEY)).isEqualTo(5);
        engine.gets.clear();
        engine.declineTryRead = true;
        assertThat(LocalReplica.tryGet(engine, KEY)).isSameAs(LocalReplica.WOULD_WAIT);
        assertThat(LocalReplica.tryVersionOf(engine, KEY)).isEqualTo(LocalReplica.VERSION_WOULD_WAIT);
        assertThat(engine.gets).isEmpty();
    }
}
