package io.ringbase.storage;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Iterator;

/**
 * A local, durable, sorted store of versioned {@link Entry entries}: what a node keeps on its own disk.
 * Implementations: {@code io.ringbase.storage.lsm.LsmEngine} (ours) and
 * {@code io.ringbase.storage.rocksdb.RocksDbEngine}.
 *
 * <p>All methods are thread-safe. Writes are durable on return according to the engine's WAL sync
 * policy. Versions decide: an {@link #apply} of an entry older than the stored one for the same key
 * changes nothing visible ({@link Entry#compareNewness}).
 */
public interface StorageEngine extends Closeable {

    /**
     * Writes {@code entry} (a value or a tombstone, with its version and expiry as given).
     *
     * @throws IOException if the WAL write failed; the write is then not acknowledged
     * @throws StoreBusyException if flushing has fallen behind and the bounded wait ran out
     */
    void apply(Entry entry) throws IOException;

    /**
     * Writes an entry given by its parts, copying {@code value} (a request buffer, say) straight into the
     * engine's own memory: no {@link Entry} and no intermediate array. Same contract as
     * {@link #apply(Entry)}; {@code value} is not read after the call returns.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     */
    default void apply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        apply(new Entry(
                key,
                version,
                expiresAtMs,
                value == null ? null : value.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
    }

    /**
     * Writes as {@link #apply(byte[], long, long, MemorySegment)} if that can be done without waiting:
     * no fsync, no flush to wait for, no file to create. Meant for event loops, which must never wait on
     * I/O: a {@code false} answer means nothing was written, and the caller should hand the write to a
     * thread that may wait.
     *
     * <p>The default asks {@link #writeMayBlock()} and applies if it says no.
     *
     * @return whether the entry was written
     * @throws IOException as {@link #apply(Entry)} (the write was attempted and failed)
     */
    default boolean tryApply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        if (writeMayBlock()) {
            return false;
        }
        apply(key, version, expiresAtMs, value);
        return true;
    }

    /**
     * Writes {@code entry} as {@link #apply(Entry)} if that can be done without waiting, as
     * {@link #tryApply(byte[], long, long, MemorySegment)} does its parts; unlike those parts, it keeps
     * a typed entry typed ({@link Entry#typed()}).
     *
     * <p>The default sends an untyped entry to the part-based method and asks {@link #writeMayBlock()}
     * for a typed one.
     *
     * @return whether the entry was written
     * @throws IOException as {@link #apply(Entry)}
     */
    default boolean tryApply(Entry entry) throws IOException {
        byte[] value = entry.value();
        if (!entry.typed()) {
            return tryApply(
                    entry.key(),
                    entry.version(),
                    entry.expiresAtMs(),
                    value == null ? null : MemorySegment.ofArray(value));
        }
        if (writeMayBlock()) {
            return false;
        }
        apply(entry);
        return true;
    }

    /**
     * Writes the entries of {@code batch} not yet applied, in order, as far as that can be done without
     * waiting (as {@link #tryApply}), and advances {@link WriteBatch#applied()} past each one written.
     * Meant for an event loop that gathered its writes: an engine with a WAL writes a run of them with
     * one {@code write(2)}. The entries it stops before are not written at all; the caller hands them
     * to a thread that may wait.
     *
     * <p>The default applies them one by one with {@link #tryApply}.
     *
     * @return whether every entry is now applied
     * @throws IOException as {@link #apply(Entry)}: the entries from {@link WriteBatch#applied()} on
     *                     were not written
     */
    default boolean tryApplyAll(WriteBatch batch) throws IOException {
        for (int i = batch.applied(); i < batch.size(); i++) {
            if (!tryApply(batch.key(i), batch.version(i), batch.expiresAtMs(i), batch.value(i))) {
                return false;
            }
            batch.markApplied(i + 1);
        }
        return true;
    }

    /**
     * Finds the newest entry for {@code key} (as {@link #get}) and points {@code cursor} at it, pinning
     * the memory it lies in until the cursor is closed; for answering a read with a single copy of the
     * value. The cursor is reset first.
     *
     * @return whether an entry (possibly a tombstone or expired) was found
     */
    default boolean read(byte[] key, ReadCursor cursor) throws IOException {
        Entry e = get(key);
        cursor.setCopy(e);
        return e != null;
    }

    /** What {@link #tryRead} did. */
    enum TryRead {
        /** An entry (possibly a tombstone or expired) was found; the cursor points at it. */
        FOUND,
        /** No entry: the key was never written, or its entries are gone. */
        NOT_FOUND,
        /** Answering would wait for the disk; nothing was read, the cursor is closed. Call {@link #read}. */
        WOULD_WAIT
    }

    /**
     * {@link #read}, unless it would have to wait for the disk (a table out of the page cache), in which
     * case it reads nothing and returns {@link TryRead#WOULD_WAIT}: an HTTP event loop then hands the
     * request to a worker, as it does a write {@link #tryApply} declines. A hint, as
     * {@link #writeMayBlock}: an engine that cannot tell reads (this default, RocksDB's engine).
     */
    default TryRead tryRead(byte[] key, ReadCursor cursor) throws IOException {
        return read(key, cursor) ? TryRead.FOUND : TryRead.NOT_FOUND;
    }

    /**
     * Whether an {@link #apply} started now could wait for more than a write to the operating system:
     * an fsync (WAL policy {@code ALWAYS}) or a flush that has fallen behind. The HTTP server runs a
     * write on its event loop only when this is false, else on a worker. A hint, not a promise: the
     * state can change right after the call (a flush stall is then bounded by its timeout).
     */
    default boolean writeMayBlock() {
        return true;
    }

    /**
     * The newest entry stored for {@code key}, including tombstones and expired entries, or
     * {@code null} if the key was never written (or its history was compacted away).
     */
    Entry get(byte[] key) throws IOException;

    /**
     * Iterates the newest entry of every key in {@code [start, end)} in {@link Keys#ORDER}, lazily.
     * With {@code liveOnly}, tombstones and entries expired at the time of each step are skipped.
     *
     * @param start inclusive lower bound
     * @param end   exclusive upper bound, or {@code null} for "to the last key"
     * @return an iterator that must be {@linkplain CloseableIterator#close() closed}; it sees a
     *         snapshot of the SSTables taken at the call, plus memtable writes that race with it
     */
    CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) throws IOException;

    /**
     * {@link #scan(byte[], byte[], boolean)} of only the keys {@code keys} keeps: for a scan that wants a
     * few keys of many (a stream or repair source wants the keys of some hash ranges), an engine may skip
     * a rejected key's value without decoding or copying it. {@code keys} is called at most once per
     * entry read, in key order, by the iterating thread. The default filters the entries of the plain scan.
     *
     * @throws IOException as the plain scan
     */
    default CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly, KeyFilter keys)
            throws IOException {
        return keys.filter(scan(start, end, liveOnly));
    }

    /**
     * Why this engine cannot take writes now, for a readiness check: {@code null} when it can, else a
     * short reason for operators (closed, or its WAL failed a write or fsync and refuses every append
     * until the node restarts). The default is {@code null}.
     */
    default String unwritableReason() {
        return null;
    }

    /** Writes the memtable to an SSTable and waits for it (used by graceful shutdown and tests). */
    void flush() throws IOException;

    /**
     * Starts a bulk load of entries in ascending key order ({@link Ingest}). The default applies each
     * entry as a write and flushes at the end ({@link Ingest#byWrites}).
     *
     * @param maxEntries about how many entries the caller adds at most before it finishes, &gt; 0: an engine
     *                   may size filters by it (more are accepted, at some cost to reads)
     * @throws IOException if the engine is closed or cannot start one
     */
    default Ingest ingest(long maxEntries) throws IOException {
        return Ingest.byWrites(this);
    }

    /**
     * Closes the engine without its final flush, for a directory about to be deleted (the warm-up's scratch
     * node): what the memtable holds stays in the WAL, which the next open replays, as after a crash. An
     * engine without a final flush closes as {@link #close()} does.
     *
     * @throws IOException as {@link #close()}
     */
    default void closeWithoutFlush() throws IOException {
        close();
    }

    /** An iterator over resources (mapped files) that must be released. */
    interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {
        @Override
        void close();

        /** An empty iterator whose close runs {@code onClose} (once): a resource for a merge to release. */
        static <T> CloseableIterator<T> releasing(Runnable onClose) {
            return new CloseableIterator<>() {
                private boolean closed;

                @Override
                public boolean hasNext() {
                    return false;
                }

                @Override
                public T next() {
                    throw new java.util.NoSuchElementException();
                }

                @Override
                public void close() {
                    if (!closed) {
                        closed = true;
                        onClose.run();
                    }
                }
            };
        }

        /** An iterator over {@code it} that holds nothing to release (close does nothing). */
        static <T> CloseableIterator<T> of(Iterator<T> it) {
            return new CloseableIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public T next() {
                    return it.next();
                }

                @Override
                public void close() {}
            };
        }
    }
}
