package io.ringbase.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AntiEntropyRepairTest {

    @TempDir
    Path tmp;

    private final List<NodeId> ids = List.of(
            new NodeId(0, "127.0.0.1", 7001), new NodeId(1, "127.0.0.1", 7002), new NodeId(2, "127.0.0.1", 7003));
    private final List<TestNode> nodes = new ArrayList<>();
    private final List<AntiEntropyRepair> repairs = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private long version = HybridLogicalClock.fromPhysicalMs(clock.get());
    private final HybridLogicalClock hlc = new HybridLogicalClock(clock::get, 0);

    /** {@code n} nodes of an {@code n}-node cluster, all with rf = {@code rf}. */
    private List<TestNode> cluster(int n, int rf) throws Exception {
        List<NodeId> members = ids.subList(0, n);
        Ring ring = new Ring(new Topology(members, members.getFirst()));
        for (NodeId id : members) {
            nodes.add(new TestNode(id, tmp.resolve("node" + id.index()), ring, rf));
        }
        return List.copyOf(nodes);
    }

    private AntiEntropyRepair repair(TestNode self, List<RepairPeer> peers, RepairOptions options) {
        AntiEntropyRepair r = new AntiEntropyRepair(self.source, self.engine, hlc, peers, options, clock::get);
        repairs.add(r);
        return r;
    }

    private AntiEntropyRepair repair(TestNode self, TestNode... peers) {
        List<RepairPeer> list = new ArrayList<>();
        for (TestNode p : peers) {
            list.add(p.asPeer());
        }
        return repair(self, list, RepairOptions.defaults().withPageBytes(256));
    }

    private static RepairStatus.Run runToEnd(AntiEntropyRepair repair) throws InterruptedException {
        assertThat(repair.start()).isTrue();
        assertThat(repair.awaitIdle(60_000)).isTrue();
        return repair.status().lastRun();
    }

    @AfterEach
    void closeAll() throws Exception {
        repairs.forEach(AntiEntropyRepair::close);
        for (TestNode n : nodes) {
            n.close();
        }
    }

    private Entry put(String key, String value) {
        return Entry.value(Keys.utf8(key), ++version, Keys.utf8(value));
    }

    private Entry delete(String key) {
        return Entry.tombstone(Keys.utf8(key), ++version);
    }

    private static void writeTo(Entry e, TestNode... targets) throws Exception {
        for (TestNode t : targets) {
            t.put(e);
        }
    }

    @Test
    void aWipedNodeGetsEveryValueAndTombstoneBack() throws Exception {
        List<TestNode> c = cluster(3, 3);
        for (int i = 0; i < 2000; i++) {
            Entry e = switch (i % 10) {
                case 0 -> delete("key-" + i);
                case 1 -> new Entry(Keys.utf8("key-" + i), ++version, clock.get() + 3_600_000, Keys.utf8("ttl-" + i));
                default -> put("key-" + i, "value-" + i);
            };
            writeTo(e, c.toArray(TestNode[]::new));
        }
        c.get(0).engine.flush();
        List<Entry> before = c.get(2).all();
        assertThat(before).hasSize(2000);

        c.get(2).wipe();
        assertThat(c.get(2).all()).isEmpty();
        RepairStatus.Run run = runToEnd(repair(c.get(2), c.get(0), c.get(1)));

        assertThat(c.get(2).all()).containsExactlyElementsOf(before);
        assertThat(run.outcome()).isEqualTo(RepairStatus.Outcome.OK);
        assertThat(run.rangesDone()).isEqualTo(32);
        assertThat(run.rangesTotal()).isEqualTo(32);
        assertThat(run.rangesFailed()).isZero();
        // everything comes from the first peer; the second then agrees with the restored node
        assertThat(run.keysReceived()).isEqualTo(2000);
        assertThat(run.keysSent()).isZero();
        assertThat(hlc.now()).as("the clock observed the received versions").isGreaterThan(version);
    }

    @Test
    void anEntryFromAClockTooFarAheadIsNotReceivedAndItsRangeFailsWhileTheRestIsRepaired() throws Exception {
        List<TestNode> c = cluster(2, 2);
        for (int i = 0; i < 200; i++) {
            writeTo(put("key-" + i, "value-" + i), c.get(0));
        }
        Entry skewed = Entry.value(
                Keys.utf8("skewed"),
                HybridLogicalClock.fromPhysicalMs(clock.get() + 60_000),
                Keys.utf8("from the future"));
        writeTo(skewed, c.get(0));
        RepairStatus.Run run = runToEnd(repair(c.get(1), c.get(0)));
        assertThat(run.outcome()).isEqualTo(RepairStatus.Outcome.PARTIAL);
        assertThat(run.rangesFailed()).isEqualTo(1);
        assertThat(run.lastError()).contains("ahead of this node's clock");
        assertThat(run.keysReceived()).isEqualTo(200);
        assertThat(c.get(1).engine.get(skewed.key())).isNull();
        assertThat(hlc.now()).as("the clock was not dragged forward").isLessThan(skewed.version());
    }

    @Test
    void withRfBelowClusterSizeAWipedNodeGetsBackExactlyItsOwnKeys() throws Exception {
        List<TestNode> c = cluster(3, 2);
        Ring ring = new Ring(new Topology(ids, ids.getFirst()));
        TreeMap<String, Entry> ownedByC = new TreeMap<>();
        for (int i = 0; i < 1500; i++) {
            Entry e = i % 4 == 0 ? delete("k" + i) : put("k" + i, "v" + i);
            List<NodeId> replicas = ring.replicas(e.key(), 2);
            for (TestNode n : c) {
                if (replicas.contains(n.id)) {
                    n.put(e);
                }
            }
            if (replicas.contains(ids.get(2))) {
                ownedByC.put("k" + i, e);
            }
        }
        c.get(2).wipe();

        runToEnd(repair(c.get(2), c.get(0), c.get(1)));

        assertThat(c.get(2).all()).containsExactlyElementsOf(sorted(ownedByC));
        assertThat(ownedByC.size()).isBetween(800, 1200); // about two thirds
    }

    private static List<Entry> sorted(Map<String, Entry> byKey) {
        List<Entry> out = new ArrayList<>(byKey.values());
        out.sort((x, y) -> Keys.compare(x.key(), y.key()));
        return out;
    }

    @Test
    void divergentReplicasConvergeToTheNewestVersionOnBothAndOnlyDifferingKeysAreStreamed() throws Exception {
        List<TestNode> c = cluster(2, 2);
        TestNode a = c.get(0);
        TestNode b = c.get(1);
        TreeMap<String, Entry> newest = new TreeMap<>();
        for (int i = 0; i < 3000; i++) {
            Entry e = put("key-" + i, "base-" + i);
            writeTo(e, a, b);
            newest.put("key-" + i, e);
        }
        a.engine.flush();
        int toB = 0;
        int toA = 0;
        for (int i = 0; i < 40; i++) { // newer on A
            Entry e = put("key-" + i, "a-" + i);
            a.put(e);
            newest.put("key-" + i, e);
            toB++;
        }
        for (int i = 40; i < 80; i++) { // newer on B
            Entry e = put("key-" + i, "b-" + i);
            b.put(e);
            newest.put("key-" + i, e);
            toA++;
        }
        for (int i = 80; i < 100; i++) { // deleted on one side only
            Entry e = delete("key-" + i);
            (i % 2 == 0 ? a : b).put(e);
            newest.put("key-" + i, e);
            if (i % 2 == 0) {
                toB++;
            } else {
                toA++;
            }
        }
        for (int i = 100; i < 110; i++) { // written on both: the later write wins
            Entry first = put("key-" + i, "first");
            Entry second = put("key-" + i, "second");
            (i % 2 == 0 ? a : b).put(first);
            (i % 2 == 0 ? b : a).put(second);
            newest.put("key-" + i, second);
            if (i % 2 == 0) {
                toA++;
            } else {
                toB++;
            }
        }
        for (int i = 0; i < 25; i++) { // only on one side
            Entry onlyA = put("only-a-" + i, "x");
            Entry onlyB = put("only-b-" + i, "y");
            a.put(onlyA);
            b.put(onlyB);
            newest.put("only-a-" + i, onlyA);
            newest.put("only-b-" + i, onlyB);
            toB++;
            toA++;
        }

        RepairStatus.Run run = runToEnd(repair(a, b));

        assertThat(a.all()).containsExactlyElementsOf(sorted(newest));
        assertThat(b.all()).containsExactlyElementsOf(sorted(newest));
        // keys are compared one by one within differing leaves: exactly the differing ones move
        assertThat(run.keysReceived()).isEqualTo(toA);
        assertThat(run.keysSent()).isEqualTo(toB);
        assertThat(run.keysReceived() + run.keysSent()).isEqualTo(toA + toB).isLessThan(newest.size() / 10);

        RepairStatus.Run again = runToEnd(repair(b, a));
        assertThat(again.keysReceived() + again.keysSent()).isZero();
        assertThat(again.outcome()).isEqualTo(RepairStatus.Outcome.OK);
    }

    @Test
    void identicalReplicasExchangeOnlyTrees() throws Exception {
        List<TestNode> c = cluster(2, 2);
        CountingPeer counting = new CountingPeer(c.get(1).asPeer());
        for (int i = 0; i < 500; i++) {
            writeTo(put("k" + i, "v"), c.get(0), c.get(1));
        }
        RepairStatus.Run run = runToEnd(repair(c.get(0), List.of(counting), RepairOptions.defaults()));
        assertThat(counting.trees).isEqualTo(16);
        assertThat(counting.pages).isZero();
        assertThat(run.keysReceived() + run.keysSent()).isZero();
    }

    @Test
    void statusGoesFromIdleToRunningToIdle() throws Exception {
        List<TestNode> c = cluster(2, 2);
        writeTo(put("k", "v"), c.get(1));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        RepairPeer gated = new GatedPeer(c.get(1).asPeer(), gate);
        AntiEntropyRepair repair = repair(c.get(0), List.of(gated), RepairOptions.defaults());

        RepairStatus idle = repair.status();
        assertThat(idle.state()).isEqualTo(RepairStatus.State.IDLE);
        assertThat(idle.lastRun()).isNull();
        assertThat(repair.toJson())
                .isEqualTo("{\"state\":\"idle\",\"rangesDone\":0,\"rangesFailed\":0,\"rangesTotal\":0,"
                        + "\"keysReceived\":0,\"keysSent\":0,\"startedAtMs\":0,\"lastRun\":null}");

        assertThat(repair.start()).isTrue();
        RepairStatus running = repair.status();
        assertThat(running.state()).isEqualTo(RepairStatus.State.RUNNING);
        assertThat(running.progress().rangesTotal()).isEqualTo(16);
        assertThat(running.progress().rangesDone()).isZero();
        assertThat(running.progress().startedAtMs()).isEqualTo(clock.get());
        assertThat(repair.toJson())
                .startsWith("{\"state\":\"running\",\"rangesDone\":0,\"rangesFailed\":0,\"rangesTotal\":16,");
        assertThat(repair.start()).as("a second start while running").isFalse();
        assertThat(repair.awaitIdle(50)).isFalse();

        clock.addAndGet(1234);
        gate.complete(null);
        assertThat(repair.awaitIdle(60_000)).isTrue();

        RepairStatus done = repair.status();
        assertThat(done.state()).isEqualTo(RepairStatus.State.IDLE);
        assertThat(done.lastRun().outcome()).isEqualTo(RepairStatus.Outcome.OK);
        assertThat(done.lastRun().finishedAtMs()).isEqualTo(clock.get());
        assertThat(done.progress()).isEqualTo(done.lastRun());
        assertThat(repair.toJson())
                .isEqualTo("{\"state\":\"idle\",\"rangesDone\":16,\"rangesFailed\":0,\"rangesTotal\":16,"
                        + "\"keysReceived\":1,\"keysSent\":0,\"startedAtMs\":1700000000000,\"lastRun\":{\"startedAtMs\":1700000000000,"
                        + "\"finishedAtMs\":1700000001234,\"rangesDone\":16,\"rangesFailed\":0,\"rangesTotal\":16,\"keysReceived\":1,"
                        + "\"keysSent\":0,\"outcome\":\"ok\",\"lastError\":null}}");
    }

    @Test
    void anUnreachablePeerFailsItsRangesAndTheNextPeerIsStillRepaired() throws Exception {
        List<TestNode> c = cluster(3, 3);
        writeTo(put("k", "v"), c.get(2));
        RepairPeer down = new DownPeer(c.get(1).id);
        AntiEntropyRepair repair = repair(c.get(0), List.of(down, c.get(2).asPeer()), RepairOptions.defaults());

        RepairStatus.Run run = runToEnd(repair);

        assertThat(run.outcome()).isEqualTo(RepairStatus.Outcome.PARTIAL);
        assertThat(run.rangesDone()).isEqualTo(32);
        assertThat(run.rangesFailed()).isEqualTo(16);
        assertThat(run.keysReceived()).isEqualTo(1);
        assertThat(run.lastError()).contains("unreachable");
        assertThat(c.get(0).engine.get(Keys.utf8("k"))).isNotNull();
        assertThat(repair.toJson()).contains("\"outcome\":\"partial\"", "\"rangesFailed\":16");
    }

    @Test
    void aPeerThatNeverAnswersTimesOut() throws Exception {
        List<TestNode> c = cluster(2, 2);
        RepairPeer silent = new GatedPeer(c.get(1).asPeer(), new CompletableFuture<>());
        RepairStatus.Run run = runToEnd(
                repair(c.get(0), List.of(silent), RepairOptions.defaults().withCallTimeoutMs(100)));
        assertThat(run.outcome()).isEqualTo(RepairStatus.Outcome.PARTIAL);
        assertThat(run.rangesFailed()).isEqualTo(16);
        assertThat(run.lastError()).contains("no answer within 100 ms");
    }

    @Test
    void closeAbortsARunningRepair() throws Exception {
        List<TestNode> c = cluster(2, 2);
        AntiEntropyRepair repair = repair(
                c.get(0),
                List.of(new GatedPeer(c.get(1).asPeer(), new CompletableFuture<>())),
                RepairOptions.defaults());
        assertThat(repair.start()).isTrue();
        repair.close();
        assertThat(repair.awaitIdle(10_000)).isTrue();
        assertThat(repair.status().lastRun().outcome()).isEqualTo(RepairStatus.Outcome.ABORTED);
        assertThatThrownBy(repair::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPeerMayNotBeTheNodeItself() throws Exception {
        List<TestNode> c = cluster(2, 2);
        assertThatThrownBy(() -> repair(c.get(0), c.get(0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> repair(c.get(0), c.get(1), c.get(1))).isInstanceOf(IllegalArgumentException.class);
    }

    /** A peer whose every call fails as if the connection were refused. */
    private record DownPeer(NodeId node) implements RepairPeer {
        private <T> CompletableFuture<T> refused() {
            return CompletableFuture.failedFuture(
                    new ReplicaException.Unreachable(node, new ConnectException("refused")));
        }

        @Override
        public CompletableFuture<MerkleTree> tree(int range, NodeId requester) {
            return refused();
        }

        @Override
        public CompletableFuture<EntryPage> entries(
                int range, NodeId requester, BitSet leaves, byte[] start, int maxBytes) {
            return refused();
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            return refused();
        }
    }

    /** A peer whose tree answers wait for {@code gate}. */
    private record GatedPeer(RepairPeer inner, CompletableFuture<Void> gate) implements RepairPeer {
        @Override
        public NodeId node() {
            return inner.node();
        }

        @Override
        public CompletableFuture<MerkleTree> tree(int range, NodeId requester) {
            return gate.thenCompose(v -> inner.tree(range, requester));
        }

        @Override
        public CompletableFuture<EntryPage> entries(
                int range, NodeId requester, BitSet leaves, byte[] start, int maxBytes) {
            return inner.entries(range, requester, leaves, start, maxBytes);
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            return inner.write(entry);
        }
    }

    /** Counts the calls made to a peer. */
    private static final class CountingPeer implements RepairPeer {
        private final RepairPeer inner;
        int trees;
        int pages;

        CountingPeer(RepairPeer inner) {
            this.inner = inner;
        }

        @Override
        public NodeId node() {
            return inner.node();
        }

        @Override
        public CompletableFuture<MerkleTree> tree(int range, NodeId requester) {
            trees++;
            return inner.tree(range, requester);
        }

        @Override
        public CompletableFuture<EntryPage> entries(
                int range, NodeId requester, BitSet leaves, byte[] start, int maxBytes) {
            pages++;
            return inner.entries(range, requester, leaves, start, maxBytes);
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            return inner.write(entry);
        }
    }
}
