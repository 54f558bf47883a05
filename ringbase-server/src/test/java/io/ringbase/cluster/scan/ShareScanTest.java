package io.ringbase.cluster.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.LocalReplica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.ring.ShareAssignment;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.ScanShare;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster scan of one share of a distributed job, with the share's filter pushed down into each
 * replica's scan ({@link LocalReplica#scan(byte[], byte[], int, ShareFilter)}): three replicas of every
 * key (rf 3 on 3 nodes) over in-memory engines.
 */
@Timeout(30)
class ShareScanTest {

    private static final List<String> URLS =
            List.of("http://127.0.0.1:7100", "http://127.0.0.1:7101", "http://127.0.0.1:7102");
    private static final int KEYS = 600;

    private final Placement placement = Placement.of(Topology.parse(URLS, URLS.getFirst()));
    private final Ring ring = placement.current();
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private final List<CountingEngine> engines =
            List.of(new CountingEngine(), new CountingEngine(), new CountingEngine());

    /** Counts the entries its scans hand out (after the pushed-down filter). */
    private static final class CountingEngine extends InMemoryEngine {
        final AtomicLong scanned = new AtomicLong();

        @Override
        public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) {
            CloseableIterator<Entry> it = super.scan(start, end, liveOnly);
            return new CloseableIterator<>() {
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
                    it.close();
                }
            };
        }

        @Override
        public CloseableIterator<Entry> scan(
                byte[] start, byte[] end, boolean liveOnly, io.ringbase.storage.KeyFilter keys) {
            CloseableIterator<Entry> it = keys.filter(scan(start, end, liveOnly));
            return new CloseableIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public Entry next() {
                    scanned.incrementAndGet();
                    return it.next();
                }

                @Override
                public void close() {
                    it.close();
                }
            };
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    private static byte[] key(int i) {
        return ("k%04d".formatted(i)).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    private NodeId node(int i) {
        return ring.nodes().get(i);
    }

    private List<LocalReplica> replicas(int... nodes) {
        List<LocalReplica> out = new ArrayList<>();
        for (int n : nodes) {
            out.add(new LocalReplica(node(n), engines.get(n), pool, pool, pool));
        }
        return out;
    }

    private void writeEverywhere() throws Exception {
        for (int i = 0; i < KEYS; i++) {
            for (InMemoryEngine e : engines) {
                e.apply(Entry.value(key(i), 10, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    private static List<String> drain(EntryBatchSource scan) throws Exception {
        List<String> out = new ArrayList<>();
        try (scan) {
            while (true) {
                List<Entry> batch = scan.nextBatch(4096).get(10, TimeUnit.SECONDS);
                if (batch.isEmpty()) {
                    return out;
                }
                batch.forEach(e -> out.add(text(e.key())));
            }
        }
    }

    private ClusterScan shareScan(List<LocalReplica> replicas, Set<String> down, List<String> path) {
        ShareFilter share = ShareFilter.of(placement, new ScanShare(0, down, path));
        return new ClusterScan(
                replicas, key(0), null, () -> 0L, 1024, (n, k) -> ring.isReplica(Ring.keyHash(k), 3, n), share);
    }

    @Test
    void theSharesTogetherHoldEveryKeyOnceAndEachReplicaSendsOnlyTheShare() throws Exception {
        writeEverywhere();
        ShareAssignment assignment = new ShareAssignment(ring, 3, Set.of());
        Set<String> seen = new HashSet<>();
        for (int n = 0; n < 3; n++) {
            engines.forEach(e -> e.scanned.set(0));
            List<String> keys = drain(shareScan(replicas(0, 1, 2), Set.of(), List.of(URLS.get(n))));
            for (String k : keys) {
                assertThat(assignment.chosen(k.getBytes(StandardCharsets.UTF_8)))
                        .isEqualTo(node(n));
                assertThat(seen.add(k)).as("key %s in two shares", k).isTrue();
            }
            for (CountingEngine e : engines) {
                assertThat(e.scanned.get()).as("entries a replica sent").isEqualTo(keys.size());
            }
        }
        assertThat(seen).hasSize(KEYS);
    }

    @Test
    void aKeyTheSharesOwnNodeLacksIsFoundFromTheOtherReplicas() throws Exception {
        ShareAssignment assignment = new ShareAssignment(ring, 3, Set.of());
        int owned = -1;
        for (int i = 0; i < KEYS && owned < 0; i++) {
            if (node(0).equals(assignment.chosen(key(i)))) {
                owned = i;
            }
        }
        assertThat(owned).isNotNegative();
        // a quorum write that missed node 0, the key's chosen replica
        engines.get(1).apply(Entry.value(key(owned), 10, new byte[] {1}));
        engines.get(2).apply(Entry.value(key(owned), 10, new byte[] {1}));

        assertThat(drain(shareScan(replicas(0, 1, 2), Set.of(), List.of(URLS.getFirst()))))
                .containsExactly(text(key(owned)));
        // the scan of node 1's share sees no key of node 0's
        assertThat(drain(shareScan(replicas(0, 1, 2), Set.of(), List.of(URLS.get(1)))))
                .isEmpty();
    }

    @Test
    void aDownNodesKeysAreInTheOtherSharesAndAHandedOnShareKeepsThem() throws Exception {
        writeEverywhere();
        Set<String> down = Set.of(URLS.get(2));
        List<String> first = drain(shareScan(replicas(0, 1), down, List.of(URLS.get(0))));
        List<String> second = drain(shareScan(replicas(0, 1), down, List.of(URLS.get(1))));
        Set<String> all = new HashSet<>(first);
        all.addAll(second);
        assertThat(all).hasSize(KEYS).hasSize(first.size() + second.size());
        // node 1 fails mid-job: with node 2 down too, node 0 is the next replica of every key of its share
        assertThat(drain(shareScan(replicas(0, 1), down, List.of(URLS.get(1), URLS.get(0)))))
                .isEqualTo(second);
    }

    @Test
    void aReplicaPageSkipsTheOtherKeysBeforeTheyCountTowardItsSize() throws Exception {
        writeEverywhere();
        ShareFilter share = ShareFilter.of(placement, new ScanShare(0, Set.of(), List.of(URLS.getFirst())));
        EntryPage page = LocalReplica.page(engines.getFirst(), key(0), null, 1, share);
        assertThat(page.entries()).hasSize(1);
        assertThat(share.keep(page.entries().getFirst().key())).isTrue();
        EntryPage all = LocalReplica.page(engines.getFirst(), key(0), null, Integer.MAX_VALUE, share);
        assertThat(all.entries()).allMatch(e -> share.keep(e.key()));
        assertThat(all.hasMore()).isFalse();
    }
}
