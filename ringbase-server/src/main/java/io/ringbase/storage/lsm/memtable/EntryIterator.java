package io.ringbase.storage.lsm.memtable;

import static io.ringbase.storage.lsm.memtable.Nodes.NULL;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The iterator of {@link Memtable#iterator}: the newest entry of each key in [start, end), in key order,
 * decoded one at a time; older versions of a key, which follow its newest in the skip list, are skipped.
 * Also the walk of {@link Memtable#forEachNewest}, which hands out the same entries encoded.
 *
 * <p>Weakly consistent: it follows level-0 links with acquire reads, so it sees a node linked
 * concurrently or not, and never fails. For one thread; the caller holds a reference to the memtable
 * while it iterates.
 */
final class EntryIterator implements CloseableIterator<Entry> {

    private final Slabs slabs;
    private final byte[] end;
    private long node;
    private long previous = NULL;

    /** {@code start == null}: from the first key; {@code end == null}: to the last. */
    EntryIterator(Slabs slabs, long head, AtomicInteger maxHeight, byte[] start, byte[] end) {
        this.slabs = slabs;
        this.end = end;
        this.node = start == null
                ? Nodes.next(slabs, head, 0)
                : SkipList.seek(slabs, head, maxHeight, start, Nodes.prefix(start));
        skipToValid();
    }

    /** Calls {@code visitor} with the newest entry of every key, in key order, encoded. */
    static void forEachNewest(Slabs slabs, long head, Memtable.EncodedEntryVisitor visitor) throws java.io.IOException {
        long previous = NULL;
        for (long n = Nodes.next(slabs, head, 0); n != NULL; n = Nodes.next(slabs, n, 0)) {
            if (previous == NULL || !Nodes.sameKey(slabs, previous, n)) {
                visitor.accept(slabs.slab(n), Nodes.entryOffset(slabs, n));
            }
            previous = n;
        }
    }

    private void skipToValid() {
        while (node != NULL && previous != NULL && Nodes.sameKey(slabs, previous, node)) {
            node = Nodes.next(slabs, node, 0);
        }
        if (node != NULL
                && end != null
                && EntryFormat.compareKey(slabs.slab(node), Nodes.entryOffset(slabs, node), end) >= 0) {
            node = NULL;
        }
    }

    @Override
    public boolean hasNext() {
        return node != NULL;
    }

    @Override
    public Entry next() {
        if (node == NULL) {
            throw new NoSuchElementException();
        }
        Entry e = Nodes.decode(slabs, node);
        previous = node;
        node = Nodes.next(slabs, node, 0);
        skipToValid();
        return e;
    }

    @Override
    public void close() {
        node = NULL;
    }
}
