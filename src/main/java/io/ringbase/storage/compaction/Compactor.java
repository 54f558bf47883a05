package io.ringbase.storage.compaction;

import io.ringbase.storage.Entry;
import io.ringbase.storage.MergeIterator;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.sstable.SstableReader;
import io.ringbase.storage.sstable.SstableSummary;
import io.ringbase.storage.sstable.SstableWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Merges SSTables into one: keeps the newest version of each key, drops shadowed versions, and drops
 * the entries the caller's predicate says are safe to drop (tombstones and expired entries that no
 * table outside the merge can still shadow). Streams: memory use does not grow with table size.
 */
public final class Compactor {

    private Compactor() {
    }

    /**
     * @param inputs    the tables to merge
     * @param output    the {@code .sst.tmp} file to write
     * @param droppable entries for which this is true are not written
     * @param aborted   polled between entries; when true the merge stops and the output is deleted
     * @return the summary of the written table; its {@code entryCount} may be 0 (the caller then
     *         discards the file)
     * @throws InterruptedIOException if aborted
     */
    public static SstableSummary compact(List<SstableReader> inputs, Path output, Predicate<Entry> droppable,
                                         BooleanSupplier aborted) throws IOException {
        long expected = 0;
        List<CloseableIterator<Entry>> sources = new ArrayList<>(inputs.size());
        for (SstableReader r : inputs) {
            expected += r.entryCount();
            sources.add(r.iterator(new byte[0], null));
        }
        try (MergeIterator merged = new MergeIterator(sources, false, () -> 0L);
             SstableWriter writer = new SstableWriter(output, Math.max(1, expected))) {
            long n = 0;
            while (merged.hasNext()) {
                Entry e = merged.next();
                if ((++n & 1023) == 0 && aborted.getAsBoolean()) {
                    throw new InterruptedIOException("compaction aborted");
                }
                if (!droppable.test(e)) {
                    writer.add(e);
                }
            }
            return writer.finish();
        }
    }
}
