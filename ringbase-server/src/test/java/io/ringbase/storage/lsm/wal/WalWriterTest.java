package io.ringbase.storage.lsm.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class WalWriterTest {

    @TempDir
    Path dir;

    private Path segment() {
        return dir.resolve("wal-00000000000000000001.log");
    }

    private static Entry entry(int thread, int i) {
        return Entry.value(Keys.utf8("t" + thread + "-" + i), i, Keys.utf8("value-" + thread + "-" + i));
    }

    private static List<Entry> replay(Path file) throws IOException {
        List<Entry> out = new ArrayList<>();
        WalReader.ReplayResult result = WalReader.replay(file, out::add);
        assertThat(result.tornTail()).isFalse();
        assertThat(result.validBytes()).isEqualTo(Files.size(file));
        return out;
    }

    /** Polls {@code value} until it reaches {@code atLeast}; fails after {@code deadline}. */
    private static void awaitAtLeast(LongSupplier value, long atLeast, Duration deadline) {
        await().atMost(deadline)
                .pollInterval(Duration.ofMillis(5))
                .alias("waited " + deadline + " for " + atLeast)
                .until(value::getAsLong, v -> v >= atLeast);
    }

    @Test
    void createFailsIfTheFileExists() throws IOException {
        Files.write(segment(), new byte[] {1});
        assertThatThrownBy(() -> WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(Files.readAllBytes(segment())).containsExactly(1);
    }

    @Test
    void nonPositiveSyncIntervalIsRejected() {
        assertThatThrownBy(() -> WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(segment()).doesNotExist();
    }

    @Test
    void alwaysPolicyFsyncsBeforeAppendReturns() throws IOException {
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000)) {
            for (int i = 1; i <= 3; i++) {
                w.append(entry(0, i));
                assertThat(w.syncCalls()).isEqualTo(i); // one appender: one fsync per append
                assertThat(w.writeCalls()).isEqualTo(i);
            }
        }
        assertThat(replay(segment())).hasSize(3);
    }

    @Test
    void groupCommitSharesWritesAndFsyncsBetweenConcurrentAppenders() throws Exception {
        int threads = 8;
        int perThread = 500;
        WalWriter w = WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000);
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    assertThat(start.await(30, TimeUnit.SECONDS)).isTrue();
                    for (int i = 0; i < perThread; i++) {
                        w.append(entry(thread, i));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        long syncsBeforeClose = w.syncCalls();
        long writes = w.writeCalls();
        w.close();

        List<Entry> replayed = replay(segment());
        assertThat(replayed).hasSize(threads * perThread);
        Map<String, Integer> nextPerThread = new HashMap<>();
        for (Entry e : replayed) { // each thread's records are in its append order
            String[] parts = new String(e.key(), StandardCharsets.UTF_8).split("-");
            int expected = nextPerThread.getOrDefault(parts[0], 0);
            assertThat(Integer.parseInt(parts[1])).isEqualTo(expected);
            nextPerThread.put(parts[0], expected + 1);
        }
        assertThat(writes).isLessThan((long) threads * perThread);
        assertThat(syncsBeforeClose).isLessThan((long) threads * perThread).isEqualTo(writes);
    }

    @Test
    void periodicPolicyReturnsBeforeFsyncAndSyncsWithinTheInterval() throws Exception {
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 100)) {
            w.append(entry(0, 1));
            assertThat(w.writeCalls()).isEqualTo(1); // written to the OS before append returned
            awaitAtLeast(w::syncCalls, 1, Duration.ofSeconds(10));

            long syncs = w.syncCalls();
            w.append(entry(0, 2));
            awaitAtLeast(w::syncCalls, syncs + 1, Duration.ofSeconds(10));
        }
        assertThat(replay(segment())).hasSize(2);
    }

    @Test
    void periodicPolicyDoesNotFsyncWithoutNewData() throws Exception {
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 20)) {
            w.append(entry(0, 1));
            awaitAtLeast(w::syncCalls, 1, Duration.ofSeconds(10));
            long syncs = w.syncCalls();
            // several intervals with nothing unsynced: no fsync throughout
            await().during(Duration.ofMillis(100))
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(5))
                    .until(w::syncCalls, n -> n == syncs);
            assertThat(w.syncCalls()).isEqualTo(syncs);
        }
    }

    @Test
    void explicitSyncIsTheDurabilityPointUnderPeriodic() throws IOException {
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 3_600_000)) {
            w.append(entry(0, 1));
            w.append(entry(0, 2));
            assertThat(w.syncCalls()).isZero();
            w.sync();
            assertThat(w.syncCalls()).isEqualTo(1);
            w.sync(); // nothing new to force
            assertThat(w.syncCalls()).isEqualTo(1);
        }
    }

    @Test
    void sizeBytesCountsTheSegmentHeaderAndEveryRecord() throws IOException {
        WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 1000);
        assertThat(w.sizeBytes()).isEqualTo(8);
        for (int i = 0; i < 10; i++) {
            w.append(entry(0, i));
        }
        long size = w.sizeBytes();
        w.close();
        assertThat(Files.size(segment())).isEqualTo(size);
        assertThat(w.path()).isEqualTo(segment());
    }

    @Test
    void aWriteBatchBoundsItsEntriesByTheirWalRecordSize() {
        // the batch counts records without knowing the WAL: its per-entry overhead must be this format's header
        assertThat(io.ringbase.storage.WriteBatch.RECORD_OVERHEAD_BYTES).isEqualTo(WalFormat.RECORD_HEADER_SIZE);
        io.ringbase.storage.WriteBatch batch = new io.ringbase.storage.WriteBatch(1000);
        byte[] key = Keys.utf8("key");
        java.lang.foreign.MemorySegment value = java.lang.foreign.MemorySegment.ofArray(new byte[1000]);
        long records = 0;
        while (batch.fits(key.length, value.byteSize())) {
            batch.add(key, 1, Entry.NO_EXPIRY, value);
            records += WalWriter.recordSize(key.length, value.byteSize());
        }
        assertThat(records).isLessThanOrEqualTo(io.ringbase.storage.WriteBatch.MAX_BYTES);
        assertThat(records + WalWriter.recordSize(key.length, value.byteSize()))
                .isGreaterThan(io.ringbase.storage.WriteBatch.MAX_BYTES);
    }

    @Test
    void appendAllWritesARunOfABatchWithOneWriteInOrder() throws IOException {
        io.ringbase.storage.WriteBatch batch = new io.ringbase.storage.WriteBatch(8);
        for (int i = 0; i < 6; i++) {
            byte[] value = i == 3 ? null : Keys.utf8("value-" + i); // one tombstone
            batch.add(
                    Keys.utf8("k" + i),
                    100 + i,
                    i == 4 ? 5_000 : Entry.NO_EXPIRY,
                    value == null ? null : java.lang.foreign.MemorySegment.ofArray(value));
        }
        long sizeBefore;
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 1000)) {
            w.append(entry(0, 1));
            sizeBefore = w.sizeBytes();
            long calls = w.writeCalls();
            w.appendAll(batch, 1, 5); // entries 1..4
            assertThat(w.writeCalls()).isEqualTo(calls + 1);
            long expected = 0;
            for (int i = 1; i < 5; i++) {
                expected += WalWriter.recordSize(batch.key(i).length, batch.valueLength(i));
            }
            assertThat(w.sizeBytes() - sizeBefore).isEqualTo(expected);
            w.appendAll(batch, 5, 5); // empty run: nothing written
            assertThat(w.writeCalls()).isEqualTo(calls + 1);
            w.append(entry(0, 2));
        }
        List<Entry> replayed = replay(segment());
        assertThat(replayed).extracting(Entry::version).containsExactly(1L, 101L, 102L, 103L, 104L, 2L);
        assertThat(replayed.get(1).value()).isEqualTo(Keys.utf8("value-1"));
        assertThat(replayed.get(3).isTombstone()).isTrue();
        assertThat(replayed.get(4).expiresAtMs()).isEqualTo(5_000);
        assertThat(replayed.get(4).key()).isEqualTo(Keys.utf8("k4"));
    }

    @Test
    void appendAllRejectsARunLargerThanOneBufferAndBadBounds() throws IOException {
        io.ringbase.storage.WriteBatch batch = new io.ringbase.storage.WriteBatch(8);
        batch.add(Keys.utf8("k"), 1, Entry.NO_EXPIRY, java.lang.foreign.MemorySegment.ofArray(new byte[1000]));
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 1000)) {
            assertThatThrownBy(() -> w.appendAll(batch, 0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> w.appendAll(batch, 1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            w.appendAll(batch, 0, 1);
        }
        assertThat(replay(segment())).hasSize(1);
    }

    @Test
    void largestRecordIsAcceptedAndLargerIsRejected() throws IOException {
        byte[] key = new byte[Entry.MAX_KEY_BYTES];
        byte[] value = new byte[WalFormat.MAX_VALUE_BYTES];
        value[value.length - 1] = 42;
        try (WalWriter w = WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000)) {
            w.append(Entry.value(Keys.utf8("small"), 1, Keys.utf8("before")));
            // a 16 MiB value with the longest content type: the prefix fits beside the largest value
            byte[] typed = io.ringbase.storage.ContentType.prefixed("t/" + "x".repeat(125), value);
            w.append(new Entry(key, 2, Entry.NO_EXPIRY, typed, true));
            w.append(Entry.value(Keys.utf8("small"), 3, Keys.utf8("after")));
            assertThatThrownBy(() -> w.append(Entry.value(key, 4, new byte[typed.length + 1])))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        List<Entry> replayed = replay(segment());
        assertThat(replayed).extracting(Entry::version).containsExactly(1L, 2L, 3L);
        assertThat(replayed.get(1).typed()).isTrue();
        assertThat(replayed.get(1).bareValue()).isEqualTo(value);
    }

    @Test
    void appendsFailWithIOExceptionAfterAnInjectedWriteFailure() throws Exception {
        WalWriter w = WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000);
        w.append(entry(0, 1));

        w.closeChannelForTest();

        assertThatThrownBy(() -> w.append(entry(0, 2))).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> w.append(entry(0, 3)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unusable");
        assertThatThrownBy(w::sync).isInstanceOf(IOException.class);
        assertThatThrownBy(w::close).isInstanceOf(IOException.class);
        assertThat(w.bufferFreedForTest())
                .as("a poisoned segment's buffer is freed at close too")
                .isTrue();
        w.close(); // idempotent

        List<Entry> replayed = new ArrayList<>();
        WalReader.replay(segment(), replayed::add);
        assertThat(replayed).containsExactly(entry(0, 1));
    }

    @Test
    void everyConcurrentAppendFailsAfterAnInjectedFailure() throws Exception {
        WalWriter w = WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000);
        w.closeChannelForTest();
        AtomicInteger failed = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (int t = 0; t < 4; t++) {
                int thread = t;
                pool.execute(() -> {
                    for (int i = 0; i < 50; i++) {
                        try {
                            w.append(entry(thread, i));
                        } catch (IOException expected) {
                            failed.incrementAndGet();
                        }
                    }
                });
            }
        }
        assertThat(failed).hasValue(200);
        assertThatThrownBy(w::close).isInstanceOf(IOException.class);
        assertThat(w.bufferFreedForTest()).isTrue();
    }

    @Test
    void closeFreesTheBatchBufferAndOnlyThen() throws Exception {
        // The buffer is native memory the writer frees itself: JDK direct buffers of closed segments
        // waited for a full GC (a System.gc() from -XX:MaxDirectMemorySize).
        for (int round = 0; round < 50; round++) {
            Path file = dir.resolve("wal-" + (100 + round) + ".log");
            WalWriter w = WalWriter.create(file, WalSyncPolicy.PERIODIC, 1000);
            w.append(entry(0, round));
            assertThat(w.bufferFreedForTest()).isFalse();
            w.close();
            assertThat(w.bufferFreedForTest()).isTrue();
            assertThatThrownBy(() -> w.append(entry(0, 1)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("closed");
            assertThat(replay(file)).containsExactly(entry(0, round));
        }
    }

    @Test
    void periodicFsyncFailurePoisonsLaterAppends() throws Exception {
        WalWriter w = WalWriter.create(segment(), WalSyncPolicy.PERIODIC, 3_600_000);
        w.append(entry(0, 1));
        w.closeChannelForTest();
        assertThatThrownBy(w::sync).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> w.append(entry(0, 2))).isInstanceOf(IOException.class);
        assertThatThrownBy(w::close).isInstanceOf(IOException.class);
    }

    @Test
    void closeCompletesPendingAppendsAndLaterAppendsFail() throws Exception {
        WalWriter w = WalWriter.create(segment(), WalSyncPolicy.ALWAYS, 1000);
        List<Entry> acknowledged = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch someWritten = new CountDownLatch(100);
        CountDownLatch closeReturned = new CountDownLatch(1);
        List<List<Boolean>> outcomes = new ArrayList<>(); // per thread, in order: acknowledged or refused
        List<Future<?>> appenders = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (int t = 0; t < 4; t++) {
                int thread = t;
                List<Boolean> mine = new ArrayList<>();
                outcomes.add(mine);
                appenders.add(pool.submit(() -> {
                    for (int i = 0; i < 1000; i++) {
                        if (i == 999) { // each thread's last append comes after close() returned
                            assertThat(closeReturned.await(30, TimeUnit.SECONDS))
                                    .isTrue();
                        }
                        Entry e = entry(thread, i);
                        try {
                            w.append(e);
                            acknowledged.add(e);
                            mine.add(true);
                            someWritten.countDown();
                        } catch (IOException closed) {
                            assertThat(closed).hasMessageContaining("closed");
                            refused.incrementAndGet();
                            mine.add(false);
                        }
                    }
                    return null;
                }));
            }
            assertThat(someWritten.await(30, TimeUnit.SECONDS))
                    .as("100 appends acknowledged")
                    .isTrue();
            w.close();
            closeReturned.countDown();
        }
        for (Future<?> f : appenders) {
            f.get(30, TimeUnit.SECONDS);
        }
        w.close(); // idempotent
        assertThat(w.bufferFreedForTest()).isTrue();

        assertThat(replay(segment())).containsExactlyInAnyOrderElementsOf(acknowledged);
        assertThat(acknowledged.size() + refused.get()).isEqualTo(4000);
        for (List<Boolean> mine : outcomes) {
            assertThat(mine)
                    .as("the append after close() returned")
                    .hasSize(1000)
                    .endsWith(false);
            assertThat(mine.subList(mine.indexOf(false), mine.size()))
                    .as("appends after a refused one")
                    .containsOnly(false);
        }
        assertThatThrownBy(() -> w.append(entry(9, 9))).isInstanceOf(IOException.class);
    }

    @Test
    void closeServesAnAppendQueuedBeforeIt() throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        WalWriter w = WalWriter.create(io, segment(), WalSyncPolicy.ALWAYS, 1000, new WalStats());
        long forcesBefore = io.count(Op.FORCE);
        io.delay(Op.FORCE, 300); // the first append leads a batch and stays in its fsync a while
        AtomicReference<Thread> second = new AtomicReference<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<?> first = pool.submit(() -> {
                w.append(entry(0, 1));
                return null;
            });
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(1))
                    .alias("the first append's fsync began")
                    .until(() -> io.count(Op.FORCE), n -> n > forcesBefore);
            Future<?> queued = pool.submit(() -> {
                second.set(Thread.currentThread());
                w.append(entry(1, 1));
                return null;
            });
            // the second append waits in the writer's queue (parked on the writer) behind that fsync
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(1))
                    .alias("the second append queued")
                    .until(() -> second.get() != null && LockSupport.getBlocker(second.get()) == w);
            w.close();
            first.get(10, TimeUnit.SECONDS);
            queued.get(10, TimeUnit.SECONDS); // served by close(), not refused
        }
        assertThat(replay(segment())).containsExactly(entry(0, 1), entry(1, 1));
        assertThatThrownBy(() -> w.append(entry(2, 1)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("closed");
    }
}
