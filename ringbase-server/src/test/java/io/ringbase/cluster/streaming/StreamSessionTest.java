package io.ringbase.cluster.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Ingest;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StreamSession} against an in-process source: completeness, retries, failure, resume. */
class StreamSessionTest {

    static final NodeId SOURCE = new NodeId(0, "127.0.0.1", 7001);
    static final NodeId TARGET = new NodeId(1, "127.0.0.1", 7002);
    static final StreamPlan PLAN = StreamFixture.join(3, SOURCE, TARGET);
    /** Small pages and checkpoints, so that a few thousand entries make many of each. */
    static final StreamOptions OPTIONS = StreamOptions.defaults()
            .withPageBytes(4 << 10)
            .withCheckpointBytes(64 << 10)
            .withRetries(3, 100, 250);

    @TempDir
    Path dir;

    LsmEngine source;
    LsmEngine target;
    Path targetDir;
    final AtomicLong nanos = new AtomicLong(1);
    final List<Long> sleeps = new ArrayList<>();

    @BeforeEach
    void open() throws IOException {
        source = LsmEngine.open(keepingTombstones(dir.resolve("source")));
        targetDir = dir.resolve("target");
        target = LsmEngine.open(keepingTombstones(targetDir));
        StreamFixture.fill(source, "k", 4_000, 100);
    }

    @AfterEach
    void close() throws IOException {
        source.close();
        target.close();
    }

    StreamSession session(StreamPeer peer, StorageEngine into) {
        return new StreamSession(PLAN, peer, into, new HybridLogicalClock(), targetDir, OPTIONS, nanos::get, n -> {
            sleeps.add(TimeUnit.NANOSECONDS.toMillis(n));
            nanos.addAndGet(n);
        });
    }

    LocalStreamPeer peer(java.util.function.IntPredicate fails) {
        return new LocalStreamPeer(new StreamSource(source, SOURCE), SOURCE, fails);
    }

    /**
     * Engine options whose compactions keep tombstones and expired entries (a cluster node's grace is days):
     * with a grace of 0 a compaction right after a stream purges them, and the count of what arrived
     * depends on whether it ran before the test looked.
     */
    private static LsmOptions keepingTombstones(java.nio.file.Path dir) {
        return LsmOptions.defaults(dir).withTombstoneGraceMs(10L * 24 * 3600 * 1000);
    }

    @Test
    void everyWantedEntryArrivesTombstonesAndExpiredIncludedAndNothingElse() throws Exception {
        List<String> wanted = StreamFixture.described(StreamFixture.wanted(source, PLAN));
        assertThat(wanted).hasSizeBetween(1_500, 2_500); // about half the keys move to the new node
        assertThat(wanted).anyMatch(s -> s.endsWith("tombstone")).anyMatch(s -> !s.contains(" exp 0 "));
        StreamSession session = session(peer(i -> false), target);
        StreamProgress done = session.run();
        assertThat(StreamFixture.described(StreamFixture.all(target))).isEqualTo(wanted);
        assertThat(done.done()).isTrue();
        assertThat(done.entries()).isEqualTo(wanted.size());
        assertThat(done.pages()).isGreaterThan(10);
        assertThat(done.resumedEntries()).isZero();
        assertThat(session.progress()).isEqualTo(done);
        StreamCursor cursor = StreamCursor.read(session.cursorFile());
        assertThat(cursor.done()).isTrue();
        assertThat(cursor.entries()).isEqualTo(wanted.size());
        // a second session for the same plan finds it done and asks the source nothing
        LocalStreamPeer again = peer(i -> false);
        assertThat(session(again, target).run().done()).isTrue();
        assertThat(again.starts).isEmpty();
    }

    @Test
    void aFailingSourceIsRetriedWithADoublingBackoff() throws Exception {
        LocalStreamPeer flaky = peer(i -> i == 2 || i == 3 || i == 4);
        StreamProgress done = session(flaky, target).run();
        assertThat(done.done()).isTrue();
        assertThat(sleeps).containsExactly(100L, 200L, 250L);
        assertThat(done.elapsedMs())
                .as("the waits are this test's clock's only movement")
                .isEqualTo(550);
        assertThat(flaky.starts.get(3)).isEqualTo(flaky.starts.get(2)); // the same page asked again
        assertThat(StreamFixture.all(target))
                .hasSize(StreamFixture.wanted(source, PLAN).size());
    }

    @Test
    void aSourceThatKeepsFailingFailsTheSessionNamingPlanSourceAndCursor() {
        LocalStreamPeer broken = peer(i -> i >= 20);
        assertThatThrownBy(() -> session(broken, target).run())
                .isInstanceOf(StreamFailedException.class)
                .hasMessageContaining("stream epoch 3 http://127.0.0.1:7001 -> http://127.0.0.1:7002")
                .hasMessageContaining("gave up on source http://127.0.0.1:7001 after 4 failed attempts")
                .hasMessageContaining("resume from durable cursor 6b2d")
                .hasMessageContaining("injected failure");
        assertThat(sleeps).hasSize(3);
    }

    @Test
    void aNewSessionResumesFromTheLastDurableCursorAndMissesNothing() throws Exception {
        List<String> wanted = StreamFixture.described(StreamFixture.wanted(source, PLAN));
        assertThatThrownBy(() -> session(peer(i -> i >= 30), target).run()).isInstanceOf(StreamFailedException.class);
        StreamCursor stopped = StreamCursor.read(StreamCursor.file(targetDir, SOURCE));
        assertThat(stopped.done()).isFalse();
        assertThat(stopped.entries()).isPositive();
        // the target restarts; the entries after the cursor are streamed again
        target.close();
        target = LsmEngine.open(keepingTombstones(targetDir));
        LocalStreamPeer good = peer(i -> false);
        StreamProgress done = session(good, target).run();
        assertThat(done.resumedEntries()).isEqualTo(stopped.entries());
        assertThat(good.starts.getFirst()).isEqualTo(java.util.HexFormat.of().formatHex(stopped.next()));
        assertThat(good.starts).doesNotContain(""); // never from the first page again
        assertThat(done.entries()).isEqualTo(wanted.size());
        assertThat(StreamFixture.described(StreamFixture.all(target))).isEqualTo(wanted);
    }

    @Test
    void aCursorOfAnotherEpochIsNotResumed() throws Exception {
        StreamCursor old = new StreamCursor(2, 42, new byte[] {'z'}, 99, 999, false);
        old.write(StreamCursor.file(targetDir, SOURCE));
        LocalStreamPeer good = peer(i -> false);
        StreamProgress done = session(good, target).run();
        assertThat(good.starts.getFirst()).isEmpty();
        assertThat(done.resumedEntries()).isZero();
        assertThat(StreamFixture.all(target))
                .hasSize(StreamFixture.wanted(source, PLAN).size());
    }

    @Test
    void aDamagedCursorIsIgnoredAndTheStreamStartsOver() throws Exception {
        Path file = StreamCursor.file(targetDir, SOURCE);
        java.nio.file.Files.createDirectories(file.getParent());
        java.nio.file.Files.write(file, new byte[] {'R', 'B', 'S', 'C', 1, 0, 0});
        LocalStreamPeer good = peer(i -> false);
        assertThat(session(good, target).run().done()).isTrue();
        assertThat(good.starts.getFirst()).isEmpty();
        assertThat(StreamCursor.read(file).done()).isTrue();
        assertThat(StreamFixture.all(target))
                .hasSize(StreamFixture.wanted(source, PLAN).size());
    }

    @Test
    void noCursorIsStoredBeforeTheEntriesBeforeItAreDurable() {
        // an engine whose ingests fail to finish (their table is not made durable): no cursor may be stored
        StorageEngine noFlush = (StorageEngine) Proxy.newProxyInstance(
                StorageEngine.class.getClassLoader(), new Class<?>[] {StorageEngine.class}, (p, m, args) -> {
                    if (m.getName().equals("flush")) {
                        throw new IOException("flush failed");
                    }
                    if (m.getName().equals("ingest")) {
                        Ingest real = target.ingest((Long) args[0]);
                        return new Ingest() {
                            @Override
                            public void add(Entry entry) throws IOException {
                                real.add(entry);
                            }

                            @Override
                            public long entries() {
                                return real.entries();
                            }

                            @Override
                            public void finish() throws IOException {
                                throw new IOException("flush failed");
                            }

                            @Override
                            public void close() throws IOException {
                                real.close();
                            }
                        };
                    }
                    try {
                        return m.invoke(target, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        assertThatThrownBy(() -> session(peer(i -> false), noFlush).run()).hasMessage("flush failed");
        assertThat(StreamCursor.file(targetDir, SOURCE)).doesNotExist();
    }

    @Test
    void aSourceThatRefusesThePlanFailsTheSessionAtOnceWithoutRetries() {
        // the peer is reached as the plan's source, but the node there is another one
        LocalStreamPeer elsewhere = new LocalStreamPeer(new StreamSource(source, TARGET), SOURCE, i -> false);
        assertThatThrownBy(() -> session(elsewhere, target).run())
                .isInstanceOf(StreamFailedException.class)
                .hasMessageContaining("source http://127.0.0.1:7001 refused the plan")
                .hasMessageContaining("stream plan names source http://127.0.0.1:7001, this node is");
        assertThat(elsewhere.starts).hasSize(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void aPeerThatIsNotThePlansSourceIsRefused() {
        LocalStreamPeer other = new LocalStreamPeer(new StreamSource(source, TARGET), TARGET, i -> false);
        assertThatThrownBy(() -> session(other, target)).hasMessageContaining("is not the plan's source");
        assertThatThrownBy(() -> new StreamSource(source, TARGET).entries(PLAN, new byte[0], 100))
                .hasMessage("stream plan names source http://127.0.0.1:7001, this node is http://127.0.0.1:7002");
    }
}
