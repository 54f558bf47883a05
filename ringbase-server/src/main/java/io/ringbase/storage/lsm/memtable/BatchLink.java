package io.ringbase.storage.lsm.memtable;

import static io.ringbase.storage.lsm.memtable.Nodes.NULL;
import static io.ringbase.storage.lsm.memtable.SkipList.SPLICE_LONGS;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The linking of a batch of filled nodes into a memtable's skip list with group prefetching, for
 * {@link Memtable#linkAll}: the searches for the nodes' places run interleaved, one step of each in
 * turn, so that the cache misses of different searches overlap instead of following one another.
 *
 * <p>Each step of a skip-list search waits for one node from memory, and the steps of one search depend
 * on each other, but those of different searches do not. This is group prefetching over pointer chains
 * (Chen, Ailamaki, Gibbons and Mowry, "Improving hash join performance through prefetching", ICDE 2004;
 * Kocberber et al., "Asynchronous memory access chaining", VLDB 2015), done by the CPU's out-of-order
 * window since Java has no prefetch instruction. The places found are checked when each node is linked
 * ({@link SkipList#linkAt}): a node linked meanwhile next to one of them fails that link's
 * compare-and-set, and that level is searched again from the predecessor found, as for concurrent
 * writers.
 *
 * <p>The searches' state is per thread, grown to the largest batch a thread linked, so a batch
 * allocates nothing once its thread has seen one as large.
 */
final class BatchLink {

    /** Per-thread search state of {@link #linkAll}. */
    private static final ThreadLocal<BatchSearch> BATCH = ThreadLocal.withInitial(BatchSearch::new);

    private BatchLink() {}

    /**
     * Links the nodes {@code nodes[from..to)}, at least two, each filled, as {@link SkipList#link} would
     * one by one: a node is linked unless the list then holds its entry or a newer one of its key.
     *
     * @return how many of the nodes were linked
     */
    static int linkAll(Slabs slabs, long head, AtomicInteger maxHeight, long[] nodes, int from, int to) {
        int n = to - from;
        BatchSearch search = BATCH.get().sized(n);
        int top = maxHeight.get();
        for (int i = 0; i < n; i++) {
            long node = nodes[from + i];
            top = Math.max(top, SkipList.raiseMaxHeight(maxHeight, Nodes.height(slabs, node)));
            search.node[i] = node;
        }
        for (int i = 0; i < n; i++) {
            search.x[i] = head;
            search.level[i] = top - 1;
        }
        long[] splices = search.splices;
        int searching = n;
        while (searching > 0) {
            for (int i = 0; i < n; i++) {
                int level = search.level[i];
                if (level < 0) {
                    continue;
                }
                long next = SkipList.searchStep(slabs, search.x[i], search.node[i], level, splices, i * SPLICE_LONGS);
                if (next != NULL) {
                    search.x[i] = next;
                } else {
                    search.level[i] = level - 1;
                    if (level == 0) {
                        searching--;
                    }
                }
            }
        }
        int linked = 0;
        for (int i = 0; i < n; i++) {
            if (SkipList.linkAt(slabs, head, search.node[i], splices, i * SPLICE_LONGS)) {
                linked++;
            }
        }
        return linked;
    }

    /** Per-thread state of {@link #linkAll}: the searches of one batch, grown to the largest batch. */
    private static final class BatchSearch {
        long[] node = new long[0];
        long[] x = new long[0];
        int[] level = new int[0];
        long[] splices = new long[0];

        BatchSearch sized(int n) {
            if (node.length < n) {
                node = new long[n];
                x = new long[n];
                level = new int[n];
                splices = new long[n * SPLICE_LONGS];
            }
            return this;
        }
    }
}
