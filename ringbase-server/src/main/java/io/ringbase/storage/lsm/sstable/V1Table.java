package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.StorageEngine;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The body of a format version 1 SSTable ({@code docs/format.md}, sections 4.1-4.6): checksummed
 * records and an exact index of one u64 record offset per entry, searched by binary search over the
 * keys in place. Read only (the engine writes version 3); kept so that version 1 tables stay readable
 * until compaction rewrites them.
 *
 * <p>Checks: each probed record's header must fill it; an entry is returned only after its checksum is
 * verified; a lookup that finds no equal key verifies the entries on both sides of the key's position,
 * and an iterator the entry before its start and the one it stops at, so a damaged key cannot silently
 * hide an entry.
 */
final class V1Table implements TableBody {

    /** Bytes of a data record before its entry: the entry's crc32c. */
    static final int RECORD_HEADER_SIZE = 4;
    /** Smallest data record: crc32c and an entry with empty key and value. */
    static final int MIN_RECORD_SIZE = RECORD_HEADER_SIZE + EntryFormat.HEADER_SIZE;

    private final Path path;
    private final Footer footer;
    /** The data section: records at the offsets of the index. */
    private final MemorySegment data;
    /** The index section: entryCount little-endian u64 record offsets, increasing. */
    private final MemorySegment index;

    V1Table(Path path, Footer footer, MemorySegment mapped) {
        this.path = path;
        this.footer = footer;
        this.data = mapped.asSlice(0, footer.dataLength());
        this.index = mapped.asSlice(footer.indexOffset(), footer.indexLength());
    }

    @Override
    public boolean locate(byte[] key, long keyPrefix, EntryLocation into) throws CorruptionException {
        long n = footer.entryCount();
        long i = lowerBound(key, keyPrefix);
        if (i < n && compareKey(i, key, keyPrefix) == 0) {
            verifyEntry(i);
            into.set(data, recordOffset(i) + RECORD_HEADER_SIZE);
            return true;
        }
        if (i < n) {
            verifyEntry(i);
        }
        if (i > 0) {
            verifyEntry(i - 1);
        }
        return false;
    }

    @Override
    public StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end, @Nullable KeyFilter keys) {
        StorageEngine.CloseableIterator<Entry> all = iterator(start, end);
        return keys == null ? all : keys.filter(all);
    }

    private StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end) {
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

    @Override
    public SstableReader.Cursor cursor() {
        return new RecordCursor();
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
        return EntryFormat.compareKey(data, offset + RECORD_HEADER_SIZE, key, keyPrefix);
    }

    /** Decodes entry {@code i}, which {@link #verifyEntry} has checked. */
    private Entry decode(long i) throws CorruptionException {
        return EntryFormat.read(data, recordOffset(i) + RECORD_HEADER_SIZE, recordEnd(i));
    }

    /** Checks entry {@code i}'s header and checksum. */
    private void verifyEntry(long i) throws CorruptionException {
        long offset = recordOffset(i);
        long end = recordEnd(i);
        long entryOffset = offset + RECORD_HEADER_SIZE;
        int stored = data.get(I32, offset);
        if (stored != Crc32c.of(data, entryOffset, end - entryOffset)) {
            throw new CorruptionException(path, offset, "entry " + i + " checksum mismatch");
        }
        checkedEntrySize(offset, end);
    }

    /** Validates the entry header of the record at [offset, end): its encoded size must fill the record. */
    private void checkedEntrySize(long offset, long end) throws CorruptionException {
        long entryOffset = offset + RECORD_HEADER_SIZE;
        long size;
        try {
            size = EntryFormat.checkedSize(data, entryOffset, end);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(path, offset, "invalid entry: " + e.getMessage(), e);
        }
        if (size != end - entryOffset) {
            throw new CorruptionException(
                    path,
                    offset,
                    "entry of " + size + " bytes does not fill its record of " + (end - offset) + " bytes");
        }
    }

    /** Offset in the data section of record {@code i}'s checksum, checked against the section bounds. */
    private long recordOffset(long i) throws CorruptionException {
        long offset = index.get(I64, i * 8);
        if (offset < 0 || offset > footer.dataLength() - MIN_RECORD_SIZE) {
            throw new CorruptionException(
                    path,
                    footer.indexOffset() + i * 8,
                    "index entry " + i + " points outside the data section: " + offset);
        }
        return offset;
    }

    /** End (exclusive) of record {@code i}: the next record's offset, or the end of the data section. */
    private long recordEnd(long i) throws CorruptionException {
        long end = i + 1 < footer.entryCount() ? recordOffset(i + 1) : footer.dataLength();
        if (end - index.get(I64, i * 8) < MIN_RECORD_SIZE) {
            throw new CorruptionException(
                    path,
                    footer.indexOffset() + i * 8,
                    "index entries " + i + " and " + (i + 1) + " are not increasing");
        }
        return end;
    }

    /** See {@link SstableReader#cursor()}. One thread at a time. */
    private final class RecordCursor implements SstableReader.Cursor {
        private long position = -1;
        private long offset = -1;

        @Override
        public boolean next() throws CorruptionException {
            position++;
            if (position >= footer.entryCount()) {
                offset = -1;
                return false;
            }
            verifyEntry(position);
            offset = recordOffset(position) + RECORD_HEADER_SIZE;
            return true;
        }

        @Override
        public MemorySegment segment() {
            return data;
        }

        @Override
        public long offset() {
            return offset;
        }
    }

    /** Iterates entries [position, first key &ge; end). One thread at a time. */
    private final class RangeIterator extends EntryIterator {
        private final byte[] end;
        private long position;

        RangeIterator(long position, byte[] end) {
            this.position = position;
            this.end = end;
        }

        @Override
        Entry fetch() throws CorruptionException {
            if (position >= footer.entryCount()) {
                return null;
            }
            verifyEntry(position);
            if (end != null && compareKey(position, end) >= 0) {
                return null;
            }
            return decode(position++);
        }
    }
}
