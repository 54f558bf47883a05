package io.ringbase.storage;

import io.ringbase.storage.manifest.ManifestState;
import io.ringbase.storage.memtable.Memtable;
import io.ringbase.storage.sstable.SstableReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An immutable snapshot of an {@link LsmEngine}'s sources, published whole on every memtable switch,
 * flush and compaction; readers take one and never see a half-made change.
 *
 * @param active          the memtable that takes writes
 * @param activeWalNumber file number of the WAL segment behind {@code active}
 * @param immutables      switched-out memtables waiting for their flush, oldest first
 * @param tables          live SSTables, highest {@code maxVersion} first (so point reads can stop early)
 */
record View(Memtable active, long activeWalNumber, List<View.Frozen> immutables, List<View.LiveTable> tables) {

    View {
        immutables = List.copyOf(immutables);
        List<LiveTable> sorted = new ArrayList<>(tables);
        sorted.sort(Comparator.comparingLong((LiveTable t) -> t.reader().maxVersion()).reversed());
        tables = List.copyOf(sorted);
    }

    /** A memtable switched out for flushing, and the WAL segment that holds its records. */
    record Frozen(Memtable memtable, long walNumber) {
    }

    /** A live SSTable and its file number. */
    record LiveTable(long number, SstableReader reader) {
    }

    /** The first WAL segment a restart must replay: that of the oldest memtable not yet flushed. */
    long walReplayFrom() {
        return immutables.isEmpty() ? activeWalNumber : immutables.getFirst().walNumber();
    }

    /** The manifest that makes this view durable: its live tables, ascending, and its WAL replay point. */
    ManifestState manifest(long nextFileNumber) {
        return new ManifestState(nextFileNumber, walReplayFrom(),
                tables.stream().map(LiveTable::number).sorted().toList());
    }
}
