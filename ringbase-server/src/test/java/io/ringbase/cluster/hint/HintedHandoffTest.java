package io.ringbase.cluster.hint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("FutureReturnValueIgnored") // hint() never completes exceptionally: the tests watch stats()
class HintedHandoffTest {

    private static final Topology TOPOLOGY = Topology.parse(
            List.of("http://127.0.0.1:7001", "http://127.0.0.1:7002", "http://127.0.0.1:7003"),
            "http://127.0.0.1:7001");
    private static final NodeId SELF = TOPOLOGY.node(0);
    private static final NodeId B = TOPOLOGY.node(1);
    private static final NodeId C = TOPOLOGY.node(2);
    private static final long BASE = System.currentTimeMillis() << 16;

    @TempDir
    Path tmp;

    private final FakeReplica b = new FakeReplica(B, false);
    private final FakeReplica c = new FakeReplica(C, false);
    private final Function<NodeId, Replica> replicas = Map.<NodeId, Replica>of(B, b, C, c)::get;
    private HintedHandoff handoff;

    private HintedHandoff open(HintOptions options) throws IOException {
        handoff = new HintedHandoff(
                () -> Placement.of(TOPOLOGY), HintStore.open(tmp.resolve("hints"), options), replicas);
        return handoff;
    }

    @AfterEach
    void close() throws IOException {
        if (handoff != null) {
            handoff.close();
        }
    }

    private static Entry value(String key, long version, String value) {
        return Entry.value(Keys.utf8(key), version, Keys.utf8(value));
    }

    /** Polls {@code condition} until it holds or {@code timeoutMs} passes; returns whether it held. */
    private static boolean await(long timeoutMs, BooleanSupplier condition) {
        try {
            Awaitility.await()
                    .atMost(Duration.ofMillis(timeoutMs))
                    .pollInterval(Duration.ofMillis(10))
                    .until(condition::getAsBoolean);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    @Test
    void hintsAreDeliveredSoonAfterTheTargetComesBackAndNotBefore() throws Exception {
        open(HintOptions.defaults()).start();
        for (int i = 0; i < 50; i++) {
            handoff.hint(B, value("k" + i, BASE + i, "v" + i));
        }
        assertThat(await(5_000, () -> handoff.stats().stored() == 50)).isTrue();
        int probesBefore = b.probes.get();
        assertThat(await(5_000, () -> b.probes.get() >= probesBefore + 3))
                .as("probed while down")
                .isTrue();
        assertThat(b.received).as("nothing delivered while down").isEmpty();
        assertThat(handoff.stats().pendingHints()).isEqualTo(50);

        long cameBack = System.nanoTime();
        b.up();

        // waits three times the bound below, so that a slow delivery fails on the bound, with its time
        assertThat(await(15_000, () -> handoff.stats().delivered() == 50))
                .as("all delivered")
                .isTrue();
        long ms = (System.nanoTime() - cameBack) / 1_000_000;
        assertThat(ms).as("delivery within about 2 s of coming back").isLessThan(5_000);
        assertThat(b.newest).hasSize(50);
        assertThat(b.newest.get("k7")).isEqualTo(value("k7", BASE + 7, "v7"));
        assertThat(await(5_000, () -> handoff.stats().pendingHints() == 0)).isTrue();
        assertThat(c.probes.get()).as("a target without hints is not probed").isZero();
    }

    @Test
    void theTargetReceivesTheNewestVersionOfAKey() throws Exception {
        open(HintOptions.defaults()).start();
        handoff.hint(B, value("k", BASE + 2, "newer"));
        handoff.hint(B, value("k", BASE + 1, "older")); // arrives late
        handoff.hint(B, value("j", BASE + 3, "first"));
        handoff.hint(B, value("j", BASE + 4, "second"));
        assertThat(await(
                        5_000,
                        () -> handoff.stats().queued() == 0 && handoff.stats().pendingHints() == 2))
                .isTrue();

        b.up();

        assertThat(await(5_000, () -> handoff.stats().pendingHints() == 0)).isTrue();
        assertThat(b.received).containsExactlyInAnyOrder(value("k", BASE + 2, "newer"), value("j", BASE + 4, "second"));
    }

    @Test
    void tombstonesAreDeliveredAsTombstones() throws Exception {
        open(HintOptions.defaults()).start();
        handoff.hint(B, Entry.tombstone(Keys.utf8("gone"), BASE + 5));
        b.up();

        assertThat(await(5_000, () -> handoff.stats().delivered() == 1)).isTrue();
        assertThat(b.received).containsExactly(Entry.tombstone(Keys.utf8("gone"), BASE + 5));
    }

    @Test
    void aFullQueueDropsAndCounts() throws Exception {
        open(HintOptions.defaults().withQueueCapacity(2)); // not started: nothing drains the queue
        for (int i = 0; i < 5; i++) {
            handoff.hint(B, value("k" + i, BASE + i, "v"));
        }

        assertThat(handoff.stats().droppedQueueFull()).isEqualTo(3);
        assertThat(handoff.stats().queued()).isEqualTo(2);

        handoff.start();
        assertThat(await(5_000, () -> handoff.stats().stored() == 2)).isTrue();
    }

    @Test
    void hintsStoredBeforeARestartAreDeliveredAfterIt() throws Exception {
        open(HintOptions.defaults()).start();
        handoff.hint(C, value("k", BASE + 1, "v"));
        assertThat(await(5_000, () -> handoff.stats().pendingHints() == 1)).isTrue();
        handoff.close();

        c.up();
        open(HintOptions.defaults()).start();

        assertThat(await(5_000, () -> handoff.stats().delivered() == 1)).isTrue();
        assertThat(c.received).containsExactly(value("k", BASE + 1, "v"));
    }

    @Test
    void aTargetThatGoesAwayMidRoundKeepsItsUndeliveredHints() throws Exception {
        HintStore store = HintStore.open(
                tmp.resolve("hints"),
                HintOptions.defaults().withMaxInFlight(1),
                WalSyncPolicy.PERIODIC,
                System::currentTimeMillis);
        for (int i = 0; i < 20; i++) {
            store.add(B, value(String.format("k%02d", i), BASE + i, "v"));
        }
        FakeReplica flaky = new FakeReplica(B, true);
        flaky.downAfterWrites(5);
        handoff = new HintedHandoff(() -> Placement.of(TOPOLOGY), store, n -> flaky);
        handoff.start();

        assertThat(await(5_000, () -> handoff.stats().delivered() == 5 && flaky.probes.get() >= 3))
                .isTrue();
        assertThat(handoff.stats().pendingHints()).isEqualTo(15);

        flaky.up();
        assertThat(await(5_000, () -> handoff.stats().pendingHints() == 0)).isTrue();
        assertThat(flaky.newest).hasSize(20);
    }

    @Test
    void hintingItselfIsRefusedAndANodeThatLeftGetsNone() throws Exception {
        open(HintOptions.defaults());

        assertThatThrownBy(() -> handoff.hint(SELF, value("k", 1, "v"))).isInstanceOf(IllegalArgumentException.class);
        // a node no longer in the placement (it left while the write ran) holds no copy: nothing is stored
        handoff.hint(new NodeId(1, "10.0.0.9", 7002), value("k", 1, "v")).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(handoff.stats().pendingHints()).isZero();
    }

    @Test
    void aReorderedClusterListDeliversEveryHintToTheNodeItWasMeantFor() throws Exception {
        open(HintOptions.defaults()).start();
        handoff.hint(B, value("for-b", BASE + 1, "b")).get(5, java.util.concurrent.TimeUnit.SECONDS);
        handoff.hint(C, value("for-c", BASE + 2, "c")).get(5, java.util.concurrent.TimeUnit.SECONDS);
        handoff.close();

        // restart with B and C swapped in --cluster: B is now node 2, C node 1
        Topology reordered = Topology.parse(
                List.of("http://127.0.0.1:7001", "http://127.0.0.1:7003", "http://127.0.0.1:7002"),
                "http://127.0.0.1:7001");
        FakeReplica newB = new FakeReplica(reordered.node(2), true);
        FakeReplica newC = new FakeReplica(reordered.node(1), true);
        Map<NodeId, Replica> byNode = Map.of(reordered.node(2), newB, reordered.node(1), newC);
        handoff = new HintedHandoff(
                () -> Placement.of(reordered),
                HintStore.open(tmp.resolve("hints"), HintOptions.defaults()),
                byNode::get);
        handoff.start();

        assertThat(await(5_000, () -> handoff.stats().pendingHints() == 0)).isTrue();
        assertThat(newB.received).containsExactly(value("for-b", BASE + 1, "b"));
        assertThat(newC.received).containsExactly(value("for-c", BASE + 2, "c"));
    }

    @Test
    void aHintWhoseFutureCompletedSurvivesACrashRightAfter() throws Exception {
        open(HintOptions.defaults()).start();
        for (int i = 0; i < 20; i++) {
            handoff.hint(B, value("k" + i, BASE + i, "v" + i)).get(5, java.util.concurrent.TimeUnit.SECONDS);
        }
        // the crash: copy the directory as it is on disk now (no close, no flush), and open the copy
        Path crashed = tmp.resolve("crashed");
        copyTree(tmp.resolve("hints"), crashed);
        try (HintStore after = HintStore.open(crashed, HintOptions.defaults())) {
            assertThat(after.pendingHints()).isEqualTo(20);
            assertThat(after.targets()).containsExactly(B.toString());
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var paths = java.nio.file.Files.walk(from)) {
            for (Path p : paths.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (java.nio.file.Files.isDirectory(p)) {
                    java.nio.file.Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals("LOCK")) {
                    java.nio.file.Files.copy(p, target);
                }
            }
        }
    }
}
