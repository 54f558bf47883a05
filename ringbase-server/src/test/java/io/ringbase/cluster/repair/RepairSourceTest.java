package io.ringbase.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A 3-node topology with rf = 2: node A holds every key, but shares with B only the keys both replicate. */
class RepairSourceTest {

    private static final int RF = 2;

    @TempDir
    Path tmp;

    private final List<NodeId> ids = List.of(
            new NodeId(0, "127.0.0.1", 7001), new NodeId(1, "127.0.0.1", 7002), new NodeId(2, "127.0.0.1", 7003));
    private final Ring ring = new Ring(new Topology(ids, ids.getFirst()));
    private TestNode a;
    private final List<Entry> written = new ArrayList<>();

    @BeforeEach
    void writeEveryKeyToA() throws Exception {
        a = new TestNode(ids.get(0), tmp.resolve("a"), ring, RF);
        long version = 1L << 40;
        for (int i = 0; i < 3000; i++) {
            byte[] key = Keys.utf8("key-" + i);
            Entry e =
                    i % 5 == 0 ? Entry.tombstone(key, ++version) : Entry.value(key, ++version, Keys.utf8("value-" + i));
            a.put(e);
            written.add(e);
        }
        a.engine.flush();
        written.sort((x, y) -> Keys.compare(x.key(), y.key()));
    }

    @AfterEach
    void close() throws Exception {
        a.close();
    }

    private boolean sharedWith(Entry e, NodeId peer) {
        List<NodeId> replicas = ring.replicas(e.key(), RF);
        return replicas.contains(ids.get(0)) && replicas.contains(peer);
    }

    private List<Entry> expected(int range, NodeId peer, BitSet leaves) {
        return written.stream()
                .filter(e -> {
                    long h = Ring.keyHash(e.key());
                    return MerkleTree.rangeOf(h) == range
                            && (leaves == null || leaves.get(MerkleTree.leafOf(h)))
                            && sharedWith(e, peer);
                })
                .toList();
    }

    @Test
    void treeCoversExactlyTheKeysSharedWithThePeer() throws Exception {
        int sharedTotal = 0;
        for (NodeId peer : List.of(ids.get(1), ids.get(2))) {
            for (int range = 0; range < MerkleTree.RANGES; range++) {
                MerkleTree.Builder b = new MerkleTree.Builder(range);
                List<Entry> shared = expected(range, peer, null);
                shared.forEach(e -> b.add(Ring.keyHash(e.key()), e));
                sharedTotal += shared.size();
                assertThat(a.source.tree(range, peer))
                        .as("peer %s range %d", peer, range)
                        .isEqualTo(b.build());
            }
        }
        // with rf = 2 of 3, A shares about a third of all keys with each peer: neither none nor all
        assertThat(sharedTotal).isBetween(1500, 2500);
    }

    @Test
    void entriesArePagedInKeyOrderAndFilteredByRangeLeafAndSharedness() throws Exception {
        NodeId peer = ids.get(2);
        int range = 3;
        BitSet leaves = new BitSet();
        for (int leaf = 0; leaf < MerkleTree.LEAVES; leaf += 2) {
            leaves.set(leaf);
        }
        List<Entry> want = expected(range, peer, leaves);
        assertThat(want).isNotEmpty();

        List<Entry> got = new ArrayList<>();
        byte[] start = new byte[0];
        int pages = 0;
        do {
            EntryPage page = a.source.entries(range, peer, leaves, start, 100);
            got.addAll(page.entries());
            start = page.next();
            pages++;
        } while (start != null);

        assertThat(got).containsExactlyElementsOf(want);
        assertThat(pages).isGreaterThanOrEqualTo(want.size() / 3); // about 40-byte entries, 100-byte pages
    }

    @Test
    void aPageEndsAfterTheEntryThatReachesMaxBytesAndContinuesAfterIt() throws Exception {
        NodeId peer = ids.get(1);
        BitSet all = new BitSet();
        all.set(0, MerkleTree.LEAVES);
        List<Entry> want = expected(0, peer, null);
        EntryPage first = a.source.entries(0, peer, all, new byte[0], 1);
        assertThat(first.entries()).containsExactly(want.getFirst());
        assertThat(first.next()).isEqualTo(EntryPage.successor(want.getFirst().key()));
        EntryPage rest = a.source.entries(0, peer, all, first.next(), Integer.MAX_VALUE);
        assertThat(rest.entries()).containsExactlyElementsOf(want.subList(1, want.size()));
        assertThat(rest.hasMore()).isFalse();
    }

    @Test
    void noLeavesMeansAnEmptyLastPage() throws Exception {
        EntryPage page = a.source.entries(0, ids.get(1), new BitSet(), new byte[0], 1000);
        assertThat(page.entries()).isEmpty();
        assertThat(page.hasMore()).isFalse();
    }

    @Test
    void argumentsAreChecked() {
        assertThatThrownBy(() -> new RepairSource(a.engine, ring, ids.get(0), 4))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RepairSource(a.engine, ring, ids.get(0), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.source.entries(16, ids.get(1), new BitSet(), new byte[0], 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.source.entries(0, ids.get(1), new BitSet(), new byte[0], 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
