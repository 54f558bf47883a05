package io.ringbase.storage.lsm.compaction;

import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.sstable.ReadFault;
import io.ringbase.storage.lsm.sstable.SstableReader;
import io.ringbase.storage.lsm.sstable.SstableSummary;
import io.ringbase.storage.lsm.sstable.SstableWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Merges SSTables into one: keeps the newest version of each key, drops shadowed versions, and drops
 * the entries the caller's predicate says are safe to drop (tombstones and expired entries that no
 * table outside the merge can still shadow).
 *
 * <p>Memory is bounded whatever the tables hold: the merge compares and copies encoded entries where
 * they lie in the inputs' mappings ({@link SstableReader#cursor()}) and hands them to the writer as they
 * are, so no entry, and no value, is decoded onto the heap (merging decoded entries held one per input:
 * a few 16 MiB values ran a 128 MiB heap out of memory).
 */
public final class Compactor {

    /** Decides, from an encoded entry, whether it may be left out of the output. */
    @FunctionalInterface
    public interface Droppable {
        /** Whether the entry encoded ({@link EntryFormat}) in {@code segment} at {@code offset} may be left out. */
        boolean test(MemorySegment segment, long offset);
    }

    /** Polled as a merge runs: where it stops when asked to, and where the caller paces it. */
    @FunctionalInterface
    public interface Checkpoint {
        /**
         * Answers whether the merge stops, after any pacing.
         *
         * @param bytesWritten bytes of the output written so far (its data blocks)
         * @return whether the merge must stop now (its output is then deleted)
         * @throws InterruptedIOException if interrupted while the caller paces the merge
         */
        boolean stop(long bytesWritten) throws InterruptedIOException;
    }

    private Compactor() {}

    /**
     * An input's cursor that reports a disk fault reading the input ({@link ReadFault}: EIO on a mapped
     * page, as an {@link InternalError}) as that input's damage, so the compaction fails with a
     * {@link io.ringbase.storage.CorruptionException} naming it and the input is quarantined, as one whose
     * checksum fails, instead of the {@code Error} ending the compaction thread's task.
     */
    private record InputCursor(SstableReader.Cursor inner, Path file) implements SstableReader.Cursor {
        @Override
        public boolean next() throws IOException {
            try {
                return inner.next();
            } catch (InternalError | IOException | UncheckedIOException e) {
                if (ReadFault.isDiskFault(e)) {
                    throw ReadFault.damage(file, e);
                }
                throw e;
            }
        }

        @Override
        public MemorySegment segment() {
            return inner.segment();
        }

        @Override
        public long offset() {
            return inner.offset();
        }
    }

    /**
     * Merges {@code inputs} into one table written to {@code output}.
     *
     * @param inputs    the tables to merge
     * @param output    the {@code .sst.tmp} file to write
     * @param droppable entries for which this is true are not written
     * @param checkpoint polled before the first entry and then every 1,024 entries; when it answers true
     *                  the merge stops and the output is deleted. The caller paces the merge there (the
     *                  engine adjusts the thread's {@link CompactionPriority} and takes the bytes written
     *                  from its {@link CompactionRateLimiter})
     * @return the summary of the written table; its {@code entryCount} may be 0 (the caller then
     *         discards the file)
     * @throws InterruptedIOException if stopped
     * @throws io.ringbase.storage.CorruptionException if an input entry is damaged
     */
    public static SstableSummary compact(
            List<SstableReader> inputs, Path output, Droppable droppable, Checkpoint checkpoint) throws IOException {
        return compact(FileIo.DISK, inputs, output, droppable, checkpoint);
    }

    /** {@link #compact(List, Path, Droppable, Checkpoint)}, writing the output through {@code io}. */
    public static SstableSummary compact(
            FileIo io, List<SstableReader> inputs, Path output, Droppable droppable, Checkpoint checkpoint)
            throws IOException {
        long expected = 0;
        // key ascending, then newest first: the first of a key popped is the one to keep
        PriorityQueue<SstableReader.Cursor> heap = new PriorityQueue<>(Math.max(1, inputs.size()), (a, b) -> {
            int c = EntryFormat.compareKeys(a.segment(), a.offset(), b.segment(), b.offset());
            return c != 0 ? c : -EntryFormat.compareNewness(a.segment(), a.offset(), b.segment(), b.offset());
        });
        for (SstableReader r : inputs) {
            expected += r.entryCount();
            SstableReader.Cursor c = new InputCursor(r.cursor(), r.path());
            if (c.next()) {
                heap.add(c);
            }
        }
        try (SstableWriter writer = new SstableWriter(io, output, Math.max(1, expected))) {
            long n = 0;
            List<SstableReader.Cursor> same = new ArrayList<>(inputs.size());
            while (!heap.isEmpty()) {
                if ((n++ & 1023) == 0 && checkpoint.stop(writer.bytesWritten())) {
                    throw new InterruptedIOException("compaction aborted");
                }
                SstableReader.Cursor best = heap.poll();
                if (!droppable.test(best.segment(), best.offset())) {
                    writer.addEncoded(best.segment(), best.offset());
                }
                while (!heap.isEmpty()
                        && EntryFormat.compareKeys(
                                        heap.peek().segment(), heap.peek().offset(), best.segment(), best.offset())
                                == 0) {
                    same.add(heap.poll()); // older versions of the same key: shadowed
                }
                same.add(best);
                for (int i = 0; i < same.size(); i++) { // indexed: no iterator per entry
                    SstableReader.Cursor c = same.get(i);
                    if (c.next()) {
                        heap.add(c);
                    }
                }
                same.clear();
            }
            return writer.finish();
        }
    }
}
