package io.ringbase.storage.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.RefCount;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.NoSuchElementException;

/**
 * Reads one SSTable ({@code docs/format.md}, section 4) through a read-only memory mapping: point
 * lookups by Bloom filter and binary search over the key index, and lazy range iteration.
 *
 * <p>Checks: {@link #open} verifies magic, format version, footer, index and Bloom checksums and the
 * section layout; every entry's checksum is verified when that entry is returned (by {@link #get} or an
 * iterator). Damage shows as {@link CorruptionException} (from iterators wrapped in an
 * {@link UncheckedIOException}).
 *
 * <p>Thread-safe: a reader is immutable after {@code open}; any number of threads may call {@code get}
 * and {@code iterator} concurrently (each iterator is for one thread).
 *
 * <p><b>Lifetime.</b> The mapping belongs to the reader's own shared {@link Arena}, unmapped when the
 * reader's reference count reaches zero, so a deleted table's disk space comes back as soon as its
 * last reader is done rather than at some later garbage collection. {@link #open} returns a reader
 * holding one reference (the opener's, given back by {@link #close()}); whoever reads it later takes one
 * with {@link #tryRetain()} and gives it back with {@link #release()}: in the engine, every view holds
 * one on each of its tables, and every read and scan holds its view (the scheme of RocksDB's
 * reference-counted {@code Version}s and of Cassandra's {@code SSTableReader} {@code Ref}s). Reading a
 * reader whose count reached zero throws {@link IllegalStateException} (the arena is closed), never
 * reads unmapped memory.
 */
public final class SstableReader implements AutoCloseable {

    private final Path path;
    private final Footer footer;
    private final long fileBytes;
    /** The data section: records at the offsets of the index. */
    private final MemorySegment data;
    /** The index section: entryCount little-endian u64 record offsets, increasing. */
    private final MemorySegment index;
    private final BloomFilter bloom;
    /** Owns the mapping: closed when {@link #refs} reaches zero. */
    private final Arena arena;
    private final RefCount refs = new RefCount();

    private SstableReader(Path path, Footer footer, long fileBytes, MemorySegment data, MemorySegment index, BloomFilter bloom,
                          Arena arena) {
        this.arena = arena;
        this.path = path;
        this.footer = footer;
        this.fileBytes = fileBytes;
        this.data = data;
        this.index = index;
        this.bloom = bloom;
    }

    /**
     * Maps {@code file} read-only and checks its footer, index and Bloom filter (reading them fully, not
     * the data section).
     *
     * @throws CorruptionException if the file is shorter than a footer, its magic or format version is
     *                             wrong, a footer/index/Bloom checksum mismatches, or the sections do not
     *                             tile the file
     * @throws IOException         if the file cannot be opened or mapped
     */
    public static SstableReader open(Path file) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            return open(file, arena);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private static SstableReader open(Path file, Arena arena) throws IOException {
        MemorySegment mapped;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < Footer.SIZE) {
                throw new CorruptionException(file, 0, "file of " + size + " bytes is shorter than the " + Footer.SIZE + "-byte footer");
            }
            mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }
        Footer footer = Footer.read(file, mapped);
        MemorySegment index = mapped.asSlice(footer.indexOffset(), footer.indexLength());
        if (Crc32c.of(index) != footer.indexCrc()) {
            throw new CorruptionException(file, footer.indexOffset(), "index checksum mismatch");
        }
        MemorySegment bloomSection = mapped.asSlice(footer.bloomOffset(), footer.bloomLength());
        if (Crc32c.of(bloomSection) != footer.bloomCrc()) {
            throw new CorruptionException(file, footer.bloomOffset(), "Bloom filter checksum mismatch");
        }
        BloomFilter bloom = BloomFilter.read(file, bloomSection, footer.bloomOffset());
        return new SstableReader(file, footer, mapped.byteSize(), mapped.asSlice(0, footer.dataLength()), index, bloom,
                arena);
    }

    /**
     * The entry stored for {@code key} (a value or a tombstone, expired or not), or {@code null}. A key the
     * Bloom filter rules out reads no data page. A search that passed the filter verifies the checksums
     * of the entry found or, on a miss, of the two entries around the key's position, so that a damaged
     * key cannot turn a hit into a silent miss.
     *
     * @throws CorruptionException if an entry read has a bad checksum or encoding
     */
    public Entry get(byte[] key) throws IOException {
        if (!bloom.mightContain(key)) {
            return null;
        }
        long n = footer.entryCount();
        long prefix = EntryFormat.keyPrefix(key);
        long i = lowerBound(key, prefix);
        if (i < n && compareKey(i, key, prefix) == 0) {
            return readEntry(i);
        }
        if (i < n) {
            verifyEntry(i);
        }
        if (i > 0) {
            verifyEntry(i - 1);
        }
        return null;
    }

    /**
     * Where the entry for {@code key} is encoded in {@link #data()}, without decoding it: the offset of
     * its {@link EntryFormat} encoding, or -1 if the table has none. Checks as {@link #get} does.
     *
     * @param key       the key
     * @param keyPrefix its {@link EntryFormat#keyPrefix} (callers that search several tables compute it once)
     * @throws CorruptionException if an entry read has a bad checksum or encoding
     */
    public long locate(byte[] key, long keyPrefix) throws IOException {
        if (!bloom.mightContain(key)) {
            return -1;
        }
        long n = footer.entryCount();
        long i = lowerBound(key, keyPrefix);
        if (i < n && compareKey(i, key, keyPrefix) == 0) {
            verifyEntry(i);
            return recordOffset(i) + SstableWriter.RECORD_HEADER_SIZE;
        }
        if (i < n) {
            verifyEntry(i);
        }
        if (i > 0) {
            verifyEntry(i - 1);
        }
        return -1;
    }

    /** The mapped data section, where {@link #locate} points; valid while the caller holds a reference. */
    public MemorySegment data() {
        return data;
    }

    /** False if {@code key} is certainly not in this table; true if it may be (about 1% false positives). */
    public boolean mightContain(byte[] key) {
        return bloom.mightContain(key);
    }

    /**
     * Entries with {@code start <= key < end} in key order, decoded one at a time as the iterator
     * advances. Each entry's checksum is verified before it is returned (also the first entry at or past
     * {@code end}, where iteration stops, and the entry before {@code start}); a mismatch is thrown from
     * {@code hasNext()}/{@code next()} as an {@link UncheckedIOException} wrapping a
     * {@link CorruptionException}.
     *
     * @param start inclusive lower bound, or {@code null} for "from the first key"
     * @param end   exclusive upper bound, or {@code null} for "to the last key"
     */
    public StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end) {
        try {
            long first = start == null ? 0 : lowerBound(start, EntryFormat.keyPrefix(start));
            if (first > 0) {
                verifyEntry(first - 1);
            }
            return new RangeIterator(first, end);
        } catch (CorruptionException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Number of entries (values and tombstones). */
    public long entryCount() {
        return footer.entryCount();
    }

    /** Size of the file in bytes. */
    public long fileBytes() {
        return fileBytes;
    }

    /** Smallest entry version; 0 for an empty table. */
    public long minVersion() {
        return footer.minVersion();
    }

    /** Largest entry version; 0 for an empty table. */
    public long maxVersion() {
        return footer.maxVersion();
    }

    /** Number of tombstones. */
    public long tombstoneCount() {
        return footer.tombstoneCount();
    }

    public Path path() {
        return path;
    }

    /**
     * Takes a reference, unless the count already reached zero (the mapping is gone).
     *
     * @return whether a reference was taken; if so, {@link #release()} must follow
     */
    public boolean tryRetain() {
        return refs.tryRetain();
    }

    /**
     * Gives a reference back; the last one unmaps the file (closing the arena waits for no thread: a
     * thread still reading without a reference would get {@link IllegalStateException}).
     *
     * @throws IllegalStateException if released more often than retained
     */
    public void release() {
        if (refs.release("SSTable " + path)) {
            arena.close();
        }
    }

    /** Whether the mapping is still open (some reference is held); for tests and leak checks. */
    public boolean isMapped() {
        return arena.scope().isAlive();
    }

    /** Gives back the reference {@link #open} returned the reader with (see the class comment). */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "SstableReader[" + path + ", " + footer.entryCount() + " entries]";
    }

    /** Index of the first entry whose key is &ge; {@code key} (entryCount if none). */
    private long lowerBound(byte[] key, long probePrefix) throws CorruptionException {
        long lo = 0;
        long hi = footer.entryCount();
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (compareKey(mid, key, probePrefix) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Compares entry {@code i}'s key with {@code key} after checking its header (not its checksum). */
    private int compareKey(long i, byte[] key) throws CorruptionException {
        return compareKey(i, key, EntryFormat.keyPrefix(key));
    }

    /** As {@link #compareKey(long, byte[])}, the probe's {@link EntryFormat#keyPrefix} given. */
    private int compareKey(long i, byte[] key, long keyPrefix) throws CorruptionException {
        long offset = recordOffset(i);
        checkedEntrySize(offset, recordEnd(i));
        return EntryFormat.compareKey(data, offset + SstableWriter.RECORD_HEADER_SIZE, key, keyPrefix);
    }

    private Entry readEntry(long i) throws CorruptionException {
        verifyEntry(i);
        return decode(i);
    }

    /** Decodes entry {@code i}, which {@link #verifyEntry} has checked. */
    private Entry decode(long i) throws CorruptionException {
        return EntryFormat.read(data, recordOffset(i) + SstableWriter.RECORD_HEADER_SIZE, recordEnd(i));
    }

    /** Checks entry {@code i}'s header and checksum. */
    private void verifyEntry(long i) throws CorruptionException {
        long offset = recordOffset(i);
        long end = recordEnd(i);
        long entryOffset = offset + SstableWriter.RECORD_HEADER_SIZE;
        int stored = data.get(I32, offset);
        if (stored != Crc32c.of(data, entryOffset, end - entryOffset)) {
            throw new CorruptionException(path, offset, "entry " + i + " checksum mismatch");
        }
        checkedEntrySize(offset, end);
    }

    /** Validates the entry header of the record at [offset, end): its encoded size must fill the record. */
    private void checkedEntrySize(long offset, long end) throws CorruptionException {
        long entryOffset = offset + SstableWriter.RECORD_HEADER_SIZE;
        long size;
        try {
            size = EntryFormat.checkedSize(data, entryOffset, end);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(path, offset, "invalid entry: " + e.getMessage(), e);
        }
        if (size != end - entryOffset) {
            throw new CorruptionException(path, offset, "entry of " + size + " bytes does not fill its record of "
                    + (end - offset) + " bytes");
        }
    }

    /** Offset in the data section of record {@code i}'s checksum, checked against the section bounds. */
    private long recordOffset(long i) throws CorruptionException {
        long offset = index.get(I64, i * 8);
        if (offset < 0 || offset > footer.dataLength() - SstableWriter.MIN_RECORD_SIZE) {
            throw new CorruptionException(path, footer.indexOffset() + i * 8, "index entry " + i + " points outside the data section: " + offset);
        }
        return offset;
    }

    /** End (exclusive) of record {@code i}: the next record's offset, or the end of the data section. */
    private long recordEnd(long i) throws CorruptionException {
        long end = i + 1 < footer.entryCount() ? recordOffset(i + 1) : footer.dataLength();
        if (end - index.get(I64, i * 8) < SstableWriter.MIN_RECORD_SIZE) {
            throw new CorruptionException(path, footer.indexOffset() + i * 8, "index entries " + i + " and " + (i + 1) + " are not increasing");
        }
        return end;
    }

    /**
     * A cursor over every entry of the table in key order, without decoding: after {@link Cursor#next()}
     * the entry is encoded at {@link Cursor#offset()} of {@link #data()}, its checksum verified. For
     * merges (compaction) that copy entries as they are, so no value is ever held on the heap.
     */
    public Cursor cursor() {
        return new Cursor();
    }

    /** See {@link #cursor()}. One thread at a time. */
    public final class Cursor {
        private long position = -1;
        private long offset = -1;

        private Cursor() {
        }

        /**
         * Moves to the next entry.
         *
         * @return false past the last one
         * @throws CorruptionException if the entry's checksum or encoding is bad
         */
        public boolean next() throws CorruptionException {
            position++;
            if (position >= footer.entryCount()) {
                offset = -1;
                return false;
            }
            verifyEntry(position);
            offset = recordOffset(position) + SstableWriter.RECORD_HEADER_SIZE;
            return true;
        }

        /** The table's data section (where {@link #offset()} points). */
        public MemorySegment segment() {
            return data;
        }

        /** Offset in {@link #segment()} of the current entry's encoding. */
        public long offset() {
            return offset;
        }

        /** The table this cursor reads. */
        public SstableReader reader() {
            return SstableReader.this;
        }
    }

    /** Iterates entries [position, first key &ge; end). One thread at a time. */
    private final class RangeIterator implements StorageEngine.CloseableIterator<Entry> {
        private final byte[] end;
        private long position;
        private Entry next;
        private boolean done;

        RangeIterator(long position, byte[] end) {
            this.position = position;
            this.end = end;
        }

        @Override
        public boolean hasNext() {
            if (next != null) {
                return true;
            }
            if (done || position >= footer.entryCount()) {
                done = true;
                return false;
            }
            try {
                verifyEntry(position);
                if (end != null && compareKey(position, end) >= 0) {
                    done = true;
                    return false;
                }
                next = decode(position);
            } catch (CorruptionException e) {
                done = true;
                throw new UncheckedIOException(e);
            }
            position++;
            return true;
        }

        @Override
        public Entry next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Entry e = next;
            next = null;
            return e;
        }

        @Override
        public void close() {
            done = true;
            next = null;
        }
    }
}
