package io.ringbase.storage.lsm;

import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.sstable.BlockCache;
import io.ringbase.storage.lsm.sstable.PinnedSections;
import io.ringbase.storage.lsm.sstable.SstableReader;
import io.ringbase.storage.lsm.sstable.SstableWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out the file numbers of a data directory and puts new SSTables in place: written to a
 * {@code .sst.tmp} file, fsynced, renamed, and the directory fsynced, so a table exists under its final
 * name only when it is complete (docs/format.md, section 1). Thread-safe.
 */
final class TableFiles {

    private final FileIo io;
    private final Path dir;
    private final AtomicLong nextNumber;
    private final BlockCache cache;
    private final PinnedSections pinned;

    /**
     * @param io         the file layer tables are written through
     * @param dir        the data directory
     * @param nextNumber the first unused file number
     * @param cache      the block cache of the tables opened here
     * @param pinned     the memory budget for their index and Bloom filter sections
     */
    TableFiles(FileIo io, Path dir, long nextNumber, BlockCache cache, PinnedSections pinned) {
        this.cache = cache;
        this.pinned = pinned;
        this.io = io;
        this.dir = dir;
        this.nextNumber = new AtomicLong(nextNumber);
    }

    /**
     * Opens the SSTable {@code file} with this directory's block cache and budget for pinned sections (see
     * {@link SstableReader#open(Path, BlockCache, PinnedSections)}).
     */
    SstableReader open(Path file) throws IOException {
        return SstableReader.open(file, cache, pinned);
    }

    /** The memory budget for this directory's tables' index and Bloom filter sections. */
    PinnedSections pinned() {
        return pinned;
    }

    /** The block cache of this directory's tables. */
    BlockCache cache() {
        return cache;
    }

    /** Takes a new file number (for a WAL segment or an SSTable). */
    long nextNumber() {
        return nextNumber.getAndIncrement();
    }

    /** The next number {@link #nextNumber()} would hand out, for the manifest. */
    long peekNextNumber() {
        return nextNumber.get();
    }

    /** Writes sorted entries to a new SSTable and opens it; closes {@code entries}. */
    LiveTable write(CloseableIterator<Entry> entries, long expectedEntries) throws IOException {
        long number = nextNumber();
        Path tmp = FileNames.sstableTmp(dir, number);
        try (entries;
                SstableWriter writer = new SstableWriter(io, tmp, Math.max(1, expectedEntries))) {
            while (entries.hasNext()) {
                writer.add(entries.next());
            }
            writer.finish();
        }
        return install(number, tmp);
    }

    /**
     * Writes the newest entry of every key of {@code memtable} to a new SSTable, copying the encoded
     * entries straight from its slabs, and opens it. The memtable must no longer take writes.
     */
    LiveTable write(Memtable memtable) throws IOException {
        long number = nextNumber();
        Path tmp = FileNames.sstableTmp(dir, number);
        try (SstableWriter writer = new SstableWriter(io, tmp, Math.max(1, memtable.count()))) {
            memtable.forEachNewest(writer::addEncoded);
            writer.finish();
        }
        return install(number, tmp);
    }

    /** The {@code .sst.tmp} file a table numbered {@code number} is written to before {@link #install}. */
    Path tmpFile(long number) {
        return FileNames.sstableTmp(dir, number);
    }

    /**
     * Renames a finished {@code .sst.tmp} file to its final name, durably, and opens it. On failure
     * neither file is left behind (the table is not in any manifest yet).
     */
    LiveTable install(long number, Path tmp) throws IOException {
        Path file = FileNames.sstable(dir, number);
        try {
            io.rename(tmp, file);
            io.syncDirectory(dir);
            return new LiveTable(number, open(file));
        } catch (IOException | RuntimeException e) {
            deleteQuietly(tmp, e);
            deleteQuietly(file, e);
            throw e;
        }
    }

    /** The file layer tables are written through. */
    FileIo io() {
        return io;
    }

    /** Deletes {@code file} if it exists, adding a failure to {@code primary}. */
    void deleteQuietly(Path file, Throwable primary) {
        try {
            io.delete(file);
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }
}
