package io.ringbase.storage.lsm;

import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.lsm.compaction.CompactionPicker;
import io.ringbase.storage.lsm.compaction.TableInfo;
import io.ringbase.storage.lsm.lifetime.RefCount;
import io.ringbase.storage.lsm.manifest.ManifestState;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.sstable.SstableReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An immutable snapshot of an {@link LsmEngine}'s sources, published whole on every memtable switch,
 * flush and compaction; readers take one and never see a half-made change.
 *
 * <p><b>Pinning.</b> A view is reference counted: the engine holds one reference while the view is
 * current, and every reader takes one ({@link #tryRetain()}) for as long as it reads. A view holds a
 * reference on each of its memtables and on each of its SSTables, given back when the view's own count
 * reaches zero, so a memtable's native memory is freed, and a table's file unmapped, only after every
 * view that contains it is done with (RocksDB's {@code SuperVersion} over its {@code Version}s works so).
 * Whoever makes a view of a table or memtable it has just created gives its own reference back once the
 * view holds one.
 */
final class View implements ReadCursor.Pin {

    /** The memtable that takes writes. */
    final Memtable active;
    /** File number of the WAL segment behind {@link #active}. */
    final long activeWalNumber;
    /** Switched-out memtables waiting for their flush, oldest first. */
    final List<Frozen> immutables;
    /** Live SSTables, highest {@code maxVersion} first (so point reads can stop early). */
    final List<LiveTable> tables;

    private final RefCount refs = new RefCount();
    /** {@link #compactionBacklog}, once computed; -1 before. Racy but idempotent: any thread may fill it. */
    private volatile int compactionBacklog = -1;

    View(Memtable active, long activeWalNumber, List<Frozen> immutables, List<LiveTable> tables) {
        this.active = active;
        this.activeWalNumber = activeWalNumber;
        this.immutables = List.copyOf(immutables);
        List<LiveTable> sorted = new ArrayList<>(tables);
        sorted.sort(Comparator.comparingLong((LiveTable t) -> t.reader().maxVersion())
                .reversed());
        this.tables = List.copyOf(sorted);
        long previous = Long.MIN_VALUE;
        for (Frozen f : this.immutables) {
            if (f.walNumber() <= previous || f.walNumber() >= activeWalNumber) {
                // A restart replays from the oldest unflushed segment up: one out of order would be skipped
                throw new IllegalStateException(
                        "WAL segments out of activation order: " + this.immutables + ", active " + activeWalNumber);
            }
            previous = f.walNumber();
        }
        retainOrFail(active);
        for (Frozen f : this.immutables) {
            retainOrFail(f.memtable());
        }
        for (LiveTable t : this.tables) {
            if (!t.reader().tryRetain()) {
                throw new IllegalStateException(
                        "a view was made of a released SSTable: " + t.reader().path());
            }
        }
    }

    /**
     * A view with this one's memtables and WAL segment and {@code tables} instead of its tables: what a
     * compaction, a quarantine or an ingest publishes (none of them touches the memtables). It holds its
     * own references to its memtables and tables, as every new view does.
     */
    View withTables(List<LiveTable> tables) {
        return new View(active, activeWalNumber, immutables, tables);
    }

    private static void retainOrFail(Memtable m) {
        if (!m.retain()) {
            throw new IllegalStateException("a view was made of a freed memtable");
        }
    }

    /** A memtable switched out for flushing, and the WAL segment that holds its records. */
    record Frozen(Memtable memtable, long walNumber) {}

    /** A live SSTable and its file number. */
    record LiveTable(long number, SstableReader reader) {}

    Memtable active() {
        return active;
    }

    long activeWalNumber() {
        return activeWalNumber;
    }

    List<Frozen> immutables() {
        return immutables;
    }

    List<LiveTable> tables() {
        return tables;
    }

    /**
     * The live tables as the compaction picker's backlog sees them: numbers, file sizes and footer counts
     * (no file ages, which take a stat each and only the tombstone trigger reads).
     */
    List<TableInfo> tableInfos() {
        List<TableInfo> infos = new ArrayList<>(tables.size());
        for (LiveTable t : tables) {
            infos.add(TableInfo.of(t.number(), t.reader(), Long.MAX_VALUE));
        }
        return infos;
    }

    /**
     * The tables compaction has yet to merge ({@link CompactionPicker#backlog}), which the write triggers
     * count; computed once per view, so a write pays for it only after a switch, flush or compaction.
     */
    int compactionBacklog(CompactionPicker picker) {
        int backlog = compactionBacklog;
        if (backlog < 0) {
            backlog = picker.backlog(tableInfos());
            compactionBacklog = backlog;
        }
        return backlog;
    }

    /** Takes a reference unless the view is already released; see the class comment. */
    boolean tryRetain() {
        return refs.tryRetain();
    }

    /** Gives a reference back; the last one releases the view's memtables and SSTables. */
    @Override
    public void release() {
        if (refs.release("view")) {
            active.release();
            for (Frozen f : immutables) {
                f.memtable().release();
            }
            for (LiveTable t : tables) {
                t.reader().release();
            }
        }
    }

    /** The first WAL segment a restart must replay: that of the oldest memtable not yet flushed. */
    long walReplayFrom() {
        return immutables.isEmpty() ? activeWalNumber : immutables.getFirst().walNumber();
    }

    /** The manifest that makes this view durable: its live tables, ascending, and its WAL replay point. */
    ManifestState manifest(long nextFileNumber) {
        return new ManifestState(
                nextFileNumber,
                walReplayFrom(),
                tables.stream().map(LiveTable::number).sorted().toList());
    }
}
