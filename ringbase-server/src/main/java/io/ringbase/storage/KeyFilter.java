package io.ringbase.storage;

/**
 * Which keys a node still replicates, for {@link ManagedEngine#cleanup} (and which keys a scan wants, for
 * {@link StorageEngine#scan(byte[], byte[], boolean, KeyFilter)}): the entries of every key it
 * rejects are removed from this node's disk (Cassandra's {@code nodetool cleanup}, run on the old
 * replicas of the ranges that moved to a node after its bootstrap).
 *
 * <p>Called by the engine's own thread (the LSM engine's compaction thread, the caller's for RocksDB), for
 * each stored key once, in {@link Keys#ORDER}. It must give the same answer for a key throughout one
 * cleanup, be thread-safe and not block (it runs once per key of the whole data set). An exception it
 * throws ends the cleanup with that exception ({@link ManagedEngine#cleanup} says what is changed then).
 */
@FunctionalInterface
public interface KeyFilter {

    /**
     * Whether this node keeps {@code key}.
     *
     * @param key the key's bytes, a fresh copy: the filter may keep it but must not change it (the engine
     *            may still use it, to delete the key)
     * @return {@code true} to keep every entry of the key, {@code false} to remove them all from this node
     */
    boolean keep(byte[] key);

    /**
     * The entries of {@code entries} whose key this filter keeps, in their order; closing it closes
     * {@code entries}. For iterators that cannot skip a rejected key before decoding it.
     */
    default StorageEngine.CloseableIterator<Entry> filter(StorageEngine.CloseableIterator<Entry> entries) {
        return new StorageEngine.CloseableIterator<>() {
            private Entry next;

            @Override
            public boolean hasNext() {
                while (next == null && entries.hasNext()) {
                    Entry e = entries.next();
                    if (keep(e.key())) {
                        next = e;
                    }
                }
                return next != null;
            }

            @Override
            public Entry next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                Entry e = next;
                next = null;
                return e;
            }

            @Override
            public void close() {
                next = null;
                entries.close();
            }
        };
    }
}
