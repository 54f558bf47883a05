package io.ringbase.kv;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Conditional writes of a node alone ({@link LocalKeyValueService#writeIf}): which versions match, that a
 * missing key, a tombstone or an expired value match no version, create-only, and that concurrent
 * compare-and-set increments of one key lose none.
 */
class LocalCompareAndSetTest {

    private static final Quorum ONE = new Quorum(1, 1);
    private static final byte[] KEY = "k".getBytes(UTF_8);

    private final InMemoryEngine engine = new InMemoryEngine();
    private final long[] nowMs = {1_000_000L};
    private final TimeSource time = () -> nowMs[0];
    private final LocalKeyValueService kv = new LocalKeyValueService(engine, new HybridLogicalClock(), time);

    private CasResult writeIf(String value, Condition condition) throws Exception {
        MemorySegment v = value == null ? null : MemorySegment.ofArray(value.getBytes(UTF_8));
        return kv.writeIf(KEY, v, Entry.NO_EXPIRY, condition, ONE)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
    }

    private long put(String value) throws Exception {
        return kv.put(KEY, MemorySegment.ofArray(value.getBytes(UTF_8)), Entry.NO_EXPIRY, ONE)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
    }

    private Versioned get() throws Exception {
        return kv.get(KEY, ONE).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void ifMatchOfTheCurrentVersionWritesAndAnswersTheNewVersion() throws Exception {
        long v1 = put("one");
        assertThat(get().version()).isEqualTo(v1);
        CasResult r = writeIf("two", new Condition.IfMatch(v1));
        assertThat(r.applied()).isTrue();
        assertThat(r.version()).isGreaterThan(v1);
        assertThat(get().value()).isEqualTo("two".getBytes(UTF_8));
        assertThat(get().version()).isEqualTo(r.version());
    }

    @Test
    void ifMatchOfAStaleVersionIsRefusedWithTheCurrentOne() throws Exception {
        long v1 = put("one");
        long v2 = put("two");
        CasResult r = writeIf("three", new Condition.IfMatch(v1));
        assertThat(r).isEqualTo(CasResult.refused(v2));
        assertThat(get().value()).isEqualTo("two".getBytes(UTF_8));
    }

    @Test
    void aMissingKeyOrATombstoneMatchesNoVersion() throws Exception {
        assertThat(writeIf("x", new Condition.IfMatch(0))).isEqualTo(CasResult.refused(CasResult.NO_VALUE));
        assertThat(writeIf("x", new Condition.IfPresent())).isEqualTo(CasResult.refused(CasResult.NO_VALUE));
        long deleted = kv.delete(KEY, ONE).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(writeIf("x", new Condition.IfMatch(deleted))).isEqualTo(CasResult.refused(CasResult.NO_VALUE));
        assertThat(get()).isNull();
    }

    @Test
    void anExpiredValueMatchesNothingAndCanBeCreatedAgain() throws Exception {
        long v = kv.put(KEY, MemorySegment.ofArray(new byte[] {1}), nowMs[0] + 10, ONE)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        assertThat(writeIf("x", new Condition.IfAbsent()).applied()).isFalse();
        nowMs[0] += 10; // expired
        assertThat(writeIf("x", new Condition.IfMatch(v)).applied()).isFalse();
        assertThat(writeIf("x", new Condition.IfAbsent()).applied()).isTrue();
    }

    @Test
    void createOnlySucceedsOnceThenRefusesWithTheVersionItMade() throws Exception {
        CasResult first = writeIf("a", new Condition.IfAbsent());
        assertThat(first.applied()).isTrue();
        assertThat(writeIf("b", new Condition.IfAbsent())).isEqualTo(CasResult.refused(first.version()));
        assertThat(get().value()).isEqualTo("a".getBytes(UTF_8));
    }

    @Test
    void conditionalDeleteWritesATombstone() throws Exception {
        long v = put("one");
        CasResult r = writeIf(null, new Condition.IfMatch(v));
        assertThat(r.applied()).isTrue();
        assertThat(get()).isNull();
        assertThat(engine.get(KEY).isTombstone()).isTrue();
    }

    /** Eight threads increment one counter by read-version / If-Match, retrying on refusal. */
    @Test
    @Timeout(60)
    void concurrentIncrementsLoseNone() throws Exception {
        put("0");
        int threads = 8;
        int each = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    int refused = 0;
                    for (int i = 0; i < each; ) {
                        Versioned cur = get();
                        int n = Integer.parseInt(new String(cur.value(), UTF_8));
                        if (writeIf(Integer.toString(n + 1), new Condition.IfMatch(cur.version()))
                                .applied()) {
                            i++;
                        } else {
                            refused++;
                        }
                    }
                    return refused;
                }));
            }
            start.countDown();
            for (Future<Integer> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(new String(get().value(), UTF_8)).isEqualTo(Integer.toString(threads * each));
    }
}
