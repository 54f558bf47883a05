package io.ringbase.cluster.hint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeliveryRoundTest {

    private static final NodeId B = new NodeId(1, "127.0.0.1", 7002);

    @TempDir
    Path tmp;

    private HintStore store;

    @AfterEach
    void close() throws IOException {
        store.close();
    }

    private void storeHints(HintOptions options, int count) throws IOException {
        store = HintStore.open(tmp, options, WalSyncPolicy.PERIODIC, System::currentTimeMillis);
        for (int i = 0; i < count; i++) {
            store.add(B, Entry.value(Keys.utf8(String.format("k%03d", i)), 1L << 40 | i, Keys.utf8("v")));
        }
    }

    /** A replica whose writes stay unanswered until the test completes them. */
    private static final class HeldReplica implements Replica {
        final List<CompletableFuture<Void>> writes = new CopyOnWriteArrayList<>();

        @Override
        public NodeId node() {
            return B;
        }

        @Override
        public CompletableFuture<Entry> read(byte[] key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            writes.add(f);
            return f;
        }

        @Override
        public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> probe() {
            return CompletableFuture.completedFuture(null);
        }

        /** Answers every write sent so far; returns how many that was. */
        int answerAll() {
            int n = 0;
            for (CompletableFuture<Void> f : writes) {
                n += f.complete(null) ? 1 : 0;
            }
            return n;
        }
    }

    private static Future<DeliveryRound.Result> startRound(DeliveryRound round) {
        FutureTask<DeliveryRound.Result> task = new FutureTask<>(round::run);
        Thread.ofVirtual().start(task);
        return task;
    }

    @Test
    void neverMoreThanMaxInFlightWritesAwaitAnAnswer() throws Exception {
        storeHints(HintOptions.defaults().withMaxInFlight(4), 10);
        HeldReplica replica = new HeldReplica();
        Future<DeliveryRound.Result> result =
                startRound(new DeliveryRound(store, replica, store.options(), () -> false));

        int[] answered = {0};
        // answer what is outstanding, checking each time that no more than 4 were sent unanswered
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(5))
                .pollInSameThread()
                .until(() -> {
                    assertThat(replica.writes.size() - answered[0]).isLessThanOrEqualTo(4);
                    answered[0] += replica.answerAll();
                    return answered[0] >= 10;
                });

        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo(new DeliveryRound.Result(10, null));
        assertThat(replica.writes).hasSize(10);
        assertThat(store.pendingHints()).isZero();
    }

    @Test
    void deliveryIsThrottledToMaxPerSecond() throws Exception {
        storeHints(HintOptions.defaults().withMaxPerSecond(50), 11);
        FakeReplica replica = new FakeReplica(B, true);
        long started = System.nanoTime();

        DeliveryRound.Result r = new DeliveryRound(store, replica, store.options(), () -> false).run();

        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(r.delivered()).isEqualTo(11);
        assertThat(ms).as("11 sends at 50/s are 10 intervals of 20 ms apart").isGreaterThanOrEqualTo(190);
    }

    @Test
    void aStoppedRoundAbandonsUnansweredWritesAndKeepsTheirHints() throws Exception {
        storeHints(HintOptions.defaults().withMaxInFlight(2), 5);
        HeldReplica replica = new HeldReplica();
        AtomicBoolean stop = new AtomicBoolean();
        Future<DeliveryRound.Result> result = startRound(new DeliveryRound(store, replica, store.options(), stop::get));
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> replica.writes.size() >= 2);

        stop.set(true);

        assertThat(result.get(5, TimeUnit.SECONDS).delivered()).isZero();
        assertThat(store.pendingHints()).isEqualTo(5);
    }
}
