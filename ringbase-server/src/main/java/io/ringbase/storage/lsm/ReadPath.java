package io.ringbase.storage.lsm;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.StorageEngine.TryRead;
import io.ringbase.storage.lsm.View.Frozen;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.sstable.EntryLocation;
import io.ringbase.storage.lsm.sstable.ReadFault;
import io.ringbase.storage.lsm.sstable.SstableReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The LSM engine's reads: point reads, scans and the figures that walk the sources. A read takes the
 * current {@link View} and pins it while it reads ({@link StatePublisher#acquire()}), and merges the
 * memtables and tables by version, so a flush or compaction that races with it changes nothing it sees.
 * Takes no lock. Thread-safe; a {@link ReadCursor} is one thread's.
 */
final class ReadPath {

    /** {@link #get}'s cursors, one per thread, so that a get reuses its block buffers instead of allocating them. */
    private static final ThreadLocal<ReadCursor> GET_CURSOR = ThreadLocal.withInitial(ReadCursor::new);

    /**
     * How a point read looks a key up in one table: {@link SstableReader#locate} ({@link #LOCATE}); tests
     * put a failing disk in between.
     */
    @FunctionalInterface
    interface TableProbe {
        /** As {@link SstableReader#locate(byte[], long, long, EntryLocation)} of {@code table}. */
        boolean locate(SstableReader table, byte[] key, long keyPrefix, long keyHash, EntryLocation into)
                throws IOException;
    }

    /** The production {@link TableProbe}. */
    static final TableProbe LOCATE = SstableReader::locate;

    private final StatePublisher state;
    private final LongSupplier wallClockMs;
    private final TableProbe probe;
    /** Takes a table a read could not read from the disk out of service (on the compaction thread). */
    private final Consumer<CorruptionException> unreadable;

    /**
     * @param probe      how a table is looked up ({@link #LOCATE})
     * @param unreadable told of each table that a point read could not read from the disk
     *                   ({@link ReadFault}), to quarantine it
     */
    ReadPath(
            StatePublisher state,
            LongSupplier wallClockMs,
            TableProbe probe,
            Consumer<CorruptionException> unreadable) {
        this.state = state;
        this.wallClockMs = wallClockMs;
        this.probe = probe;
        this.unreadable = unreadable;
    }

    /** {@link LsmEngine#get}. */
    Entry get(byte[] key) throws IOException {
        ReadCursor cursor = GET_CURSOR.get(); // get never runs inside another get: one per thread is enough
        try {
            return read(key, cursor, true) == TryRead.FOUND ? cursor.toEntry() : null;
        } finally {
            cursor.close();
        }
    }

    /**
     * {@link LsmEngine#read} or, with {@code mayWait} false, {@link LsmEngine#tryRead}: the latter
     * declines once the lookup reaches a table whose point reads go through {@code pread} (it is out of
     * the page cache, {@link SstableReader#readsWithPread()}) and whose Bloom filter does not rule the
     * key out. Allocates nothing once the cursor's block buffers ({@link ProbeBuffers}) have grown.
     */
    TryRead read(byte[] key, ReadCursor cursor, boolean mayWait) throws IOException {
        View v = state.acquire();
        cursor.pin(v);
        long prefix = EntryFormat.keyPrefix(key);
        long hash = Memtable.keyHash(key); // once for every memtable's and table's filter
        MemorySegment bestSegment = null;
        long bestOffset = -1;
        long node = v.active().find(key, hash);
        if (node != 0) {
            bestSegment = v.active().segment(node);
            bestOffset = v.active().entryOffset(node);
        }
        // indexed loops, not for-each: escape analysis left a for-each's iterator on the heap (a 32-byte
        // ListItr per read, a fifth of a GET's heap bytes)
        List<Frozen> immutables = v.immutables();
        for (int i = 0; i < immutables.size(); i++) {
            Memtable m = immutables.get(i).memtable();
            long n = m.find(key, hash);
            if (n != 0) {
                MemorySegment s = m.segment(n);
                long o = m.entryOffset(n);
                if (bestSegment == null || EntryFormat.compareNewness(s, o, bestSegment, bestOffset) > 0) {
                    bestSegment = s;
                    bestOffset = o;
                }
            }
        }
        List<LiveTable> tables = v.tables();
        for (int i = 0; i < tables.size(); i++) {
            SstableReader r = tables.get(i).reader();
            if (bestSegment != null && r.maxVersion() < EntryFormat.version(bestSegment, bestOffset)) {
                break; // tables are sorted by maxVersion, descending: none of the rest can be newer
            }
            if (!mayWait && r.readsWithPread() && r.mightContainHash(hash)) {
                cursor.close(); // gives the view back
                return TryRead.WOULD_WAIT;
            }
            EntryLocation probe = ProbeBuffers.probe(cursor);
            if (locate(r, key, prefix, hash, probe)
                    && (bestSegment == null
                            || EntryFormat.compareNewness(probe.segment(), probe.offset(), bestSegment, bestOffset)
                                    > 0)) {
                bestSegment = probe.segment();
                bestOffset = probe.offset();
                ProbeBuffers.keepProbe(cursor); // a later probe must not overwrite the block this entry may lie in
            }
        }
        if (bestSegment == null) {
            cursor.close();
            return TryRead.NOT_FOUND;
        }
        cursor.set(bestSegment, bestOffset);
        return TryRead.FOUND;
    }

    /**
     * Looks {@code key} up in {@code r}. A disk fault reading it ({@link ReadFault}: EIO on a mapped page,
     * which the JVM raises as an {@link InternalError}, or on a {@code pread}) fails this read with a
     * {@link CorruptionException} naming the table, not its thread with an {@code Error}, and has the table
     * quarantined, as a compaction does with an input whose checksum fails. A checksum mismatch is thrown
     * as it is (compaction quarantines the table when it merges it).
     */
    private boolean locate(SstableReader r, byte[] key, long prefix, long hash, EntryLocation into) throws IOException {
        try {
            return probe.locate(r, key, prefix, hash, into);
        } catch (InternalError | IOException | UncheckedIOException e) {
            if (!ReadFault.isDiskFault(e)) {
                throw e;
            }
            CorruptionException damage = ReadFault.damage(r.path(), e);
            unreadable.accept(damage);
            throw damage;
        }
    }

    /**
     * {@link LsmEngine#scan}: a merge of every source of the current view, which it pins until closed. A
     * source that fails while opening (a damaged first block) closes those opened and unpins the view
     * before the failure is thrown: a scan that never started must not keep memtables and mappings.
     */
    CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly, @Nullable KeyFilter keys) {
        View v = state.acquire();
        List<CloseableIterator<Entry>> sources = new ArrayList<>();
        sources.add(CloseableIterator.releasing(v::release)); // first: whatever fails next, closing unpins
        try {
            sources.add(filtered(v.active().iterator(start, end), keys));
            for (Frozen f : v.immutables()) {
                sources.add(filtered(f.memtable().iterator(start, end), keys));
            }
            if (start != null && v.tables().size() > 1) {
                for (LiveTable t : v.tables()) { // every table's first reads on the device at once
                    t.reader().prefetch(start);
                }
            }
            for (LiveTable t : v.tables()) {
                sources.add(t.reader().iterator(start, end, keys));
            }
        } catch (RuntimeException | Error e) {
            MergeIterator.closeAll(sources, e);
            throw e;
        }
        return new MergeIterator(sources, liveOnly, wallClockMs); // closes them all if it throws
    }

    /** The largest version stored, or {@link Long#MIN_VALUE} if none. */
    long maxVersion() {
        View v = state.acquire();
        try {
            long max = v.active().maxVersion();
            for (Frozen f : v.immutables()) {
                max = Math.max(max, f.memtable().maxVersion());
            }
            for (LiveTable t : v.tables()) {
                max = Math.max(max, t.reader().maxVersion());
            }
            return max;
        } finally {
            v.release();
        }
    }

    /** Slab bytes of the active and switched-out memtables, exact. */
    long memtableBytes() {
        View v = state.acquire();
        try {
            long bytes = v.active().sizeBytes();
            for (Frozen f : v.immutables()) {
                bytes += f.memtable().sizeBytes();
            }
            return bytes;
        } finally {
            v.release();
        }
    }

    private static CloseableIterator<Entry> filtered(CloseableIterator<Entry> entries, @Nullable KeyFilter keys) {
        return keys == null ? entries : keys.filter(entries);
    }
}
