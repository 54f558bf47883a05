package io.ringbase.storage.lsm.memtable;

import static io.ringbase.storage.lsm.memtable.Nodes.MAX_HEIGHT;
import static io.ringbase.storage.lsm.memtable.Nodes.NULL;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The searches and links of a memtable's lock-free skip list (Pugh, "Skip Lists", 1990; RocksDB's
 * {@code InlineSkipList}): static methods over the memtable's slabs, its head node and its height,
 * which the memtable passes in, so that a search compiles as it would inline in the memtable.
 *
 * <p>A search for a node's place records, at each level, the last node before it and that node's
 * successor: a <em>splice</em>, {@code 2 * MAX_HEIGHT} longs from some base in an array (predecessors at
 * {@code base + level}, successors at {@code base + MAX_HEIGHT + level}). A node is linked level by
 * level from the bottom with one compare-and-set per level; the one at level 0 publishes it, and a
 * failed one means a concurrent link moved the place, which is then searched again at that level from
 * the predecessor found. An entry the list already holds, or an older one than its key's newest, is not
 * linked (the duplicate check at level 0).
 *
 * <p>The list's height ({@code maxHeight}) only grows, by compare-and-set; a search that read a lower
 * height just starts lower, which is correct since every node is linked at level 0.
 */
final class SkipList {

    /** Longs of one search's place: predecessor and successor at each level. */
    static final int SPLICE_LONGS = 2 * MAX_HEIGHT;
    /** Per-thread search state of an insert: predecessor and successor at each level. */
    private static final ThreadLocal<long[]> SPLICE = ThreadLocal.withInitial(() -> new long[SPLICE_LONGS]);

    private SkipList() {}

    /** Links a filled node at every level of its height; false if a newer or equal entry was there. */
    static boolean link(Slabs slabs, long head, AtomicInteger maxHeight, long node) {
        int top = raiseMaxHeight(maxHeight, Nodes.height(slabs, node));
        long[] splice = SPLICE.get();
        long x = head;
        for (int level = top - 1; level >= 0; level--) {
            x = findSplice(slabs, x, node, level, splice, 0);
        }
        return linkAt(slabs, head, node, splice, 0);
    }

    /** Makes the list at least {@code height} levels tall; returns its height. */
    static int raiseMaxHeight(AtomicInteger maxHeight, int height) {
        int top = maxHeight.get();
        while (height > top) {
            if (maxHeight.compareAndSet(top, height)) {
                return height;
            }
            top = maxHeight.get();
        }
        return top;
    }

    /**
     * Links {@code node} at the place {@code splices[base..base + 2 * MAX_HEIGHT)} records (predecessor
     * and successor at each level), searching a level again where a concurrent link moved it.
     */
    static boolean linkAt(Slabs slabs, long head, long node, long[] splices, int base) {
        if (isDuplicate(slabs, head, node, splices, base)) {
            return false;
        }
        int height = Nodes.height(slabs, node);
        for (int level = 0; level < height; level++) {
            while (true) {
                long prev = splices[base + level];
                long next = splices[base + MAX_HEIGHT + level];
                Nodes.setNext(slabs, node, level, next);
                if (Nodes.casNext(slabs, /* node= */ prev, level, /* expected= */ next, /* next= */ node)) {
                    break;
                }
                // someone linked between prev and next: look again
                findSplice(slabs, prev, node, level, splices, base);
                if (level == 0 && isDuplicate(slabs, head, node, splices, base)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * From {@code x} at {@code level}: records the last node before {@code node} and its successor in
     * {@code splices} from {@code base}, and returns that node.
     */
    static long findSplice(Slabs slabs, long x, long node, int level, long[] splices, int base) {
        for (long next = searchStep(slabs, x, node, level, splices, base);
                next != NULL;
                next = searchStep(slabs, x, node, level, splices, base)) {
            x = next;
        }
        return x;
    }

    /**
     * One step of the search for {@code node}'s place at {@code level}, standing on {@code x}: the next
     * node if it sorts before {@code node} (move there), else 0, with {@code x} and its successor recorded
     * as the place at that level in {@code splices} from {@code base}.
     */
    static long searchStep(Slabs slabs, long x, long node, int level, long[] splices, int base) {
        long next = Nodes.next(slabs, x, level);
        if (next != NULL && Nodes.compareNodes(slabs, next, node) < 0) {
            return next;
        }
        splices[base + level] = x;
        splices[base + MAX_HEIGHT + level] = next;
        return NULL;
    }

    /** Whether the level-0 neighbours of {@code node}'s place make it redundant. */
    private static boolean isDuplicate(Slabs slabs, long head, long node, long[] splices, int base) {
        long prev = splices[base];
        if (prev != head && Nodes.sameKey(slabs, prev, node)) {
            return true; // a newer (or equal) version of the key sorts before it
        }
        long next = splices[base + MAX_HEIGHT];
        return next != NULL && Nodes.compareNodes(slabs, next, node) == 0;
    }

    /** First node whose key is &ge; {@code key} (the newest of that key), or 0. */
    static long seek(Slabs slabs, long head, AtomicInteger maxHeight, byte[] key, long keyPrefix) {
        long x = head;
        long next = NULL;
        for (int level = maxHeight.get() - 1; level >= 0; level--) {
            while (true) {
                next = Nodes.next(slabs, x, level);
                if (next != NULL && Nodes.compareToKey(slabs, next, key, keyPrefix) < 0) {
                    x = next;
                } else {
                    break;
                }
            }
        }
        // the successor of x that compared >= key, not a second read of x's successor: a node linked
        // after x meanwhile (a smaller key than this one) would be returned instead of the key's node
        return next;
    }
}
