package io.ringbase.cluster.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterScanTest {

    private static final LongSupplier NOW = () -> 1_000;
    private final ExecutorService otherThread =
            Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-replica-io"));

    @AfterEach
    void stop() {
        otherThread.shutdownNow();
    }

    private static byte[] k(String s) {
        return Keys.utf8(s);
    }

    private static Entry v(String key, long version, String value) {
        return Entry.value(k(key), version, Keys.utf8(value));
    }

    private static Entry expiring(String key, long version, long expiresAtMs, String value) {
        return new Entry(k(key), version, expiresAtMs, Keys.utf8(value));
    }

    /** Reads the whole scan, checking that only the last batch is empty, and closes it. */
    private static List<Entry> drain(EntryBatchSource source, int maxBytes) throws Exception {
        List<Entry> out = new ArrayList<>();
        try (source) {
            while (true) {
                List<Entry> batch = source.nextBatch(maxBytes).get(10, TimeUnit.SECONDS);
                if (batch.isEmpty()) {
                    return out;
                }
                out.addAll(batch);
            }
        }
    }

    private static List<String> render(List<Entry> entries) {
        return entries.stream()
                .map(e -> new String(e.key(), StandardCharsets.UTF_8) + "="
                        + new String(e.value(), StandardCharsets.UTF_8))
                .toList();
    }

    private static ClusterScan scan(List<FakeReplica> replicas, String start, String end, int pageBytes) {
        return new ClusterScan(replicas, k(start), end == null ? null : k(end), NOW, pageBytes);
    }

    @Test
    void newestVersionWinsWhicheverReplicaHoldsIt() throws Exception {
        FakeReplica a = new FakeReplica(0).put(v("k1", 5, "a5")).put(v("k2", 1, "a1"));
        FakeReplica b = new FakeReplica(1).put(v("k1", 3, "b3")).put(v("k2", 9, "b9"));
        FakeReplica c = new FakeReplica(2).put(v("k2", 7, "c7")).put(v("k3", 2, "c2"));
        assertThat(render(drain(scan(List.of(a, b, c), "k", null, 1024), 1024)))
                .containsExactly("k1=a5", "k2=b9", "k3=c2");
    }

    @Test
    void tombstoneOnOneReplicaHidesAnOlderValueOnAnother() throws Exception {
        FakeReplica a =
                new FakeReplica(0).put(v("a", 1, "old")).put(v("b", 1, "b")).put(v("c", 8, "newer than the delete"));
        FakeReplica b = new FakeReplica(1).put(Entry.tombstone(k("a"), 2)).put(Entry.tombstone(k("c"), 7));
        assertThat(render(drain(scan(List.of(a, b), "a", null, 1024), 1024)))
                .containsExactly("b=b", "c=newer than the delete");
    }

    @Test
    void aCopyOnANodeThatDoesNotReplicateTheKeyIsLeftOutOfTheMerge() throws Exception {
        // b replicates only keys starting with "b"; its other copies are leftovers of an older list: a
        // value whose replicas dropped its purged tombstone, and a newer-looking version of "a2"
        FakeReplica a = new FakeReplica(0).put(v("a2", 3, "a2")).put(v("b1", 1, "b1 old"));
        FakeReplica b = new FakeReplica(1)
                .put(v("a1", 5, "resurrected"))
                .put(v("a2", 9, "stale"))
                .put(v("b1", 2, "b1"));
        BiPredicate<NodeId, byte[]> holds = (node, key) -> node.index() == 0 || key[0] == 'b';
        assertThat(render(drain(new ClusterScan(List.of(a, b), k("a"), null, NOW, 1, holds), 1024)))
                .containsExactly("a2=a2", "b1=b1");
        assertThat(render(drain(new ClusterScan(List.of(a, b), k("a"), null, NOW, 1024, holds), 1024)))
                .as("with every entry in one page")
                .containsExactly("a2=a2", "b1=b1");
    }

    @Test
    void expiredEntriesAreHiddenEvenWhenAnOlderLiveVersionExists() throws Exception {
        FakeReplica a = new FakeReplica(0).put(expiring("a", 2, 500, "expired")).put(expiring("b", 1, 2_000, "lives"));
        FakeReplica b = new FakeReplica(1).put(v("a", 1, "older, live")).put(expiring("c", 1, 1_000, "expires now"));
        assertThat(render(drain(scan(List.of(a, b), "a", null, 1024), 1024))).containsExactly("b=lives");
    }

    @Test
    void eachKeyOnceInKeyOrderAcrossOverlappingReplicas() throws Exception {
        List<FakeReplica> replicas = List.of(new FakeReplica(0), new FakeReplica(1), new FakeReplica(2));
        for (int i = 0; i < 100; i++) {
            for (int r = 0; r < 3; r++) {
                if (i % (r + 1) == 0) {
                    replicas.get(r).put(v(String.format("key%03d", i), r, "r" + r));
                }
            }
        }
        List<Entry> out = drain(scan(replicas, "key", null, 64), 100);
        assertThat(out).hasSize(100);
        assertThat(out).extracting(Entry::key).isSortedAccordingTo(Keys.ORDER).doesNotHaveDuplicates();
    }

    @Test
    void onePageEntryAtATimeAndEmptyReplicas() throws Exception {
        FakeReplica a =
                new FakeReplica(0).put(v("a", 1, "a")).put(v("c", 1, "c")).put(v("e", 1, "e"));
        FakeReplica empty = new FakeReplica(1);
        FakeReplica b =
                new FakeReplica(2).put(v("b", 1, "b")).put(v("c", 2, "c2")).put(v("d", 1, "d"));
        // pageBytes 1: every page holds exactly one entry; maxBytes 1: every batch one entry
        assertThat(render(drain(scan(List.of(a, empty, b), "a", null, 1), 1)))
                .containsExactly("a=a", "b=b", "c=c2", "d=d", "e=e");
        assertThat(a.requests.get()).isEqualTo(3);
        assertThat(empty.requests.get()).isEqualTo(1);
        assertThat(drain(scan(List.of(new FakeReplica(0), new FakeReplica(1)), "a", null, 1), 1))
                .isEmpty();
        assertThat(drain(new ClusterScan(List.of(), k("a"), null, NOW), 1)).isEmpty();
    }

    @Test
    void startIsInclusiveEndExclusive() throws Exception {
        FakeReplica a = new FakeReplica(0);
        FakeReplica b = new FakeReplica(1);
        for (String key : List.of("a", "b", "c", "d", "e")) {
            (key.compareTo("c") < 0 ? a : b).put(v(key, 1, key));
        }
        assertThat(render(drain(scan(List.of(a, b), "b", "d", 1), 1))).containsExactly("b=b", "c=c");
        assertThat(render(drain(scan(List.of(a, b), "bb", "dd", 1), 1))).containsExactly("c=c", "d=d");
        int before = a.requests.get() + b.requests.get();
        assertThat(drain(scan(List.of(a, b), "d", "b", 1), 1)).isEmpty();
        assertThat(drain(scan(List.of(a, b), "c", "c", 1), 1)).isEmpty();
        assertThat(a.requests.get() + b.requests.get())
                .as("an empty range asks no replica")
                .isEqualTo(before);
    }

    @Test
    void pagesCompletedLaterOnAnotherThreadGiveTheSameResult() throws Exception {
        FakeReplica a = new FakeReplica(0);
        FakeReplica b = new FakeReplica(1);
        for (int i = 0; i < 200; i++) {
            (i % 3 == 0 ? a : b).put(v(String.format("k%04d", i), 1, "v" + i));
            if (i % 5 == 0) {
                a.put(v(String.format("k%04d", i), 2, "newer" + i));
            }
        }
        a.completer = otherThread;
        b.completer = otherThread;
        List<String> out = render(drain(scan(List.of(a, b), "k", null, 50), 30));
        assertThat(out).hasSize(200);
        assertThat(out.get(5)).isEqualTo("k0005=newer5");
        assertThat(out.get(6)).isEqualTo("k0006=v6");
    }

    @Test
    void aBatchIsNotHeldBackForAPageInFlight() throws Exception {
        FakeReplica a = new FakeReplica(0).put(v("a", 1, "a")).put(v("c", 1, "c"));
        FakeReplica b = new FakeReplica(1).put(v("b", 1, "b")).put(v("d", 1, "d"));
        a.manual = true;
        b.manual = true;
        try (ClusterScan scan = scan(List.of(a, b), "a", null, 1)) {
            CompletableFuture<List<Entry>> first = scan.nextBatch(1024);
            assertThat(first).isNotDone();
            assertThat(a.completeNext()).isTrue();
            assertThat(first).isNotDone(); // b's first page decides whether "a" is the least key
            assertThat(b.completeNext()).isTrue();
            // "a" is emitted; a's next page is in flight, so the batch ends there instead of waiting
            assertThat(render(first.get(1, TimeUnit.SECONDS))).containsExactly("a=a");
            CompletableFuture<List<Entry>> second = scan.nextBatch(1024);
            assertThat(second).isNotDone();
            while (Boolean.logicalOr(a.completeNext(), b.completeNext())) {
                // complete pages as they are asked for (both, each pass: hence no short circuit)
            }
            assertThat(render(second.get(1, TimeUnit.SECONDS))).containsExactly("b=b");
        }
    }

    @Test
    void aReplicaFailingMidScanFailsTheScan() throws Exception {
        FakeReplica a = new FakeReplica(0);
        FakeReplica b = new FakeReplica(1);
        for (int i = 0; i < 20; i++) {
            a.put(v("k" + (char) ('a' + i), 1, "a"));
            b.put(v("k" + (char) ('a' + i), 2, "b"));
        }
        b.failOnRequest = 3;
        b.completer = otherThread;
        ClusterScan scan = scan(List.of(a, b), "k", null, 1);
        List<Entry> seen = new ArrayList<>();
        Throwable failure = null;
        try (scan) {
            for (int i = 0; i < 100 && failure == null; i++) {
                try {
                    List<Entry> batch = scan.nextBatch(1).get(10, TimeUnit.SECONDS);
                    assertThat(batch).as("the scan must not end normally").isNotEmpty();
                    seen.addAll(batch);
                } catch (ExecutionException e) {
                    failure = e.getCause();
                }
            }
            assertThat(failure).isInstanceOf(ReplicaException.Failed.class).hasMessageContaining("injected");
            assertThat(((ReplicaException) failure).node()).isEqualTo(b.node());
            assertThat(seen.size()).isLessThan(20);
            // once broken, it stays broken
            assertThatThrownBy(() -> scan.nextBatch(1).get(1, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(ReplicaException.Failed.class);
        }
    }

    @Test
    void aPageOutOfOrderFailsTheScan() {
        FakeReplica liar = new FakeReplica(0) {
            @Override
            public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
                return CompletableFuture.completedFuture(new EntryPage(List.of(v("b", 1, "b"), v("a", 1, "a")), null));
            }
        };
        assertThatThrownBy(() -> drain(scan(List.of(liar), "a", null, 1024), 1024))
                .hasCauseInstanceOf(ReplicaException.Failed.class)
                .hasMessageContaining("out of order");
    }

    @Test
    void atMostTwoPagesPerReplicaAreHeldOrInFlight() throws Exception {
        List<FakeReplica> replicas = List.of(new FakeReplica(0), new FakeReplica(1), new FakeReplica(2));
        for (int i = 0; i < 3000; i++) {
            replicas.get(i % 3).put(v(String.format("k%05d", i), 1, "x".repeat(20)));
        }
        for (FakeReplica r : replicas) {
            r.completer = otherThread;
        }
        int entries = 0;
        try (ClusterScan scan = scan(replicas, "k", null, 10 * 28)) { // about 10 entries a page
            byte[] last = null;
            while (true) {
                List<Entry> batch = scan.nextBatch(100).get(10, TimeUnit.SECONDS);
                if (batch.isEmpty()) {
                    break;
                }
                entries += batch.size();
                last = batch.getLast().key();
                for (FakeReplica r : replicas) {
                    // pages handed out but not yet merged past: the one being merged and the one prefetched
                    byte[] upTo = last;
                    long unfinished = r.pages.stream()
                            .filter(p -> !p.entries().isEmpty()
                                    && Keys.compare(p.entries().getLast().key(), upTo) > 0)
                            .count();
                    assertThat(unfinished)
                            .as("pages held by replica %s", r.node())
                            .isLessThanOrEqualTo(2);
                }
            }
        }
        assertThat(entries).isEqualTo(3000);
        for (FakeReplica r : replicas) {
            assertThat(r.maxInFlight.get()).isEqualTo(1);
            assertThat(r.pages).hasSizeGreaterThan(80);
        }
    }

    @Test
    void closeFailsTheOutstandingBatchAndCancelsPagesInFlight() throws Exception {
        FakeReplica a = new FakeReplica(0).put(v("a", 1, "a"));
        a.manual = true;
        ClusterScan scan = scan(List.of(a), "a", null, 1024);
        CompletableFuture<List<Entry>> batch = scan.nextBatch(1024);
        CompletableFuture<EntryPage> page = a.waiting.getFirst().getKey();
        scan.close();
        assertThat(page).isCancelled();
        assertThat(batch).isCompletedExceptionally();
        assertThatThrownBy(() -> batch.get(1, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        scan.close(); // idempotent
    }

    /** Random entries over three replicas with overlaps; the merge must equal the newest live view. */
    @Test
    void matchesTheNewestLiveViewOfAModel() throws Exception {
        Random rnd = new Random(20250611);
        long now = 10_000;
        for (int round = 0; round < 300; round++) {
            List<FakeReplica> replicas = List.of(new FakeReplica(0), new FakeReplica(1), new FakeReplica(2));
            TreeMap<byte[], Entry> model = new TreeMap<>(Keys.ORDER);
            int keySpace = 1 + rnd.nextInt(80);
            int writes = rnd.nextInt(200);
            for (int i = 0; i < writes; i++) {
                byte[] key = k("k" + rnd.nextInt(keySpace));
                long version = rnd.nextInt(50);
                Entry e = switch (rnd.nextInt(6)) {
                    case 0 -> Entry.tombstone(key, version);
                    case 1 -> new Entry(key, version, now - 100 + rnd.nextInt(200), Keys.utf8("t" + i));
                    default -> Entry.value(key, version, Keys.utf8("v" + i + "x".repeat(rnd.nextInt(30))));
                };
                // each write lands on one to three replicas, like a partial quorum write
                for (FakeReplica r : replicas) {
                    if (rnd.nextInt(3) == 0 || r == replicas.get(i % 3)) {
                        r.put(e);
                    }
                }
                model.merge(key, e, Entry::newer);
            }
            byte[] start = k("k" + rnd.nextInt(keySpace + 1));
            byte[] end = rnd.nextInt(3) == 0 ? null : k("k" + rnd.nextInt(keySpace + 1));
            for (FakeReplica r : replicas) {
                if (rnd.nextBoolean()) {
                    r.completer = otherThread;
                }
            }
            int pageBytes = 1 + rnd.nextInt(200);
            int maxBytes = 1 + rnd.nextInt(300);
            List<Entry> expected = new ArrayList<>();
            if (end == null || Keys.compare(start, end) < 0) {
                var range = end == null ? model.tailMap(start, true) : model.subMap(start, true, end, false);
                range.values().stream().filter(e -> e.isLive(now)).forEach(expected::add);
            }
            List<Entry> merged = drain(new ClusterScan(replicas, start, end, () -> now, pageBytes), maxBytes);
            assertThat(merged).as("round %d", round).containsExactlyElementsOf(expected);
        }
    }
}
