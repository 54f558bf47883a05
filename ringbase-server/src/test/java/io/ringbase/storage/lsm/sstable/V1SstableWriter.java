package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.io.FileIo;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Test fixture: the writer of format version 1, which the engine no longer writes (it writes version 2
 * with {@link SstableWriter}) but must still read. Writes one SSTable ({@code docs/format.md}, sections
 * 4.1-4.7) from entries given in strictly increasing key
 * order, in bounded memory: entries stream to the file through a reused 1 MiB off-heap buffer, the key
 * index (one u64 per entry) goes to a side file {@code <file>.idx} that is appended to the table at
 * {@link #finish()} and then deleted, and the Bloom filter is built off-heap. Heap use does not grow with
 * the number of entries.
 *
 * <p>Usage: {@code try (var w = new V1SstableWriter(tmp, n)) { w.add(...); ...; summary = w.finish(); }};
 * a writer closed without {@code finish()} deletes what it wrote. Not thread-safe: one thread at a time.
 */
final class V1SstableWriter implements Closeable {

    /** Bytes of a data record before its entry: the entry's crc32c. */
    static final int RECORD_HEADER_SIZE = V1Table.RECORD_HEADER_SIZE;
    /** Smallest data record: crc32c and an entry with empty key and value. */
    static final int MIN_RECORD_SIZE = V1Table.MIN_RECORD_SIZE;
    /** Records up to this size are assembled in the reused buffer; larger ones in a temporary one. */
    static final int BUFFER_SIZE = 1 << 20;

    private static final int INDEX_BUFFER_SIZE = 64 * 1024;
    private static final String INDEX_SUFFIX = ".idx";

    private enum State {
        OPEN,
        FINISHED,
        CLOSED
    }

    private final Path file;
    private final Path indexFile;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer;
    private final MemorySegment indexBuffer;
    private final CRC32C entryCrc = new CRC32C();
    private final CRC32C indexCrc = new CRC32C();
    private final FileIo io;
    private FileChannel data;
    private FileChannel index;
    private BloomFilter.Builder bloom;
    private State state = State.OPEN;

    private int bufferUsed;
    private int indexBufferUsed;
    /** File offset of the next record. */
    private long position;

    private long entryCount;
    private long tombstoneCount;
    private long minVersion = Long.MAX_VALUE;
    private long maxVersion = Long.MIN_VALUE;
    /** Where the previous entry's key lies (its memtable slab, an input's mapping, or its entry's array). */
    private MemorySegment lastKeySegment;

    private long lastKeyOffset;
    private int lastKeyLength;
    /** A {@code ByteBuffer} view of {@link #buffer}, for checksums without a view per entry. */
    private final java.nio.ByteBuffer bufferView;

    /**
     * Creates {@code file} (which must not exist; callers pass a {@code *.sst.tmp} path and rename it after
     * {@link #finish()}) and its side file {@code file + ".idx"} (replaced if it exists).
     *
     * @param expectedEntries an upper bound on the number of entries, &ge; 0, which sizes the Bloom
     *                        filter (10 bits per entry, 1.25 bytes off-heap per entry while writing);
     *                        more entries are accepted but raise the false-positive rate
     * @throws java.nio.file.FileAlreadyExistsException if {@code file} exists
     * @throws IllegalArgumentException if {@code expectedEntries} is negative
     */
    V1SstableWriter(Path file, long expectedEntries) throws IOException {
        this(FileIo.DISK, file, expectedEntries);
    }

    /**
     * {@link #V1SstableWriter(Path, long)} through {@code io}: the table and its side file are created,
     * written, fsynced and deleted by {@code io}'s channels and calls.
     */
    V1SstableWriter(FileIo io, Path file, long expectedEntries) throws IOException {
        this.io = java.util.Objects.requireNonNull(io, "io");
        if (expectedEntries < 0) {
            throw new IllegalArgumentException("negative expectedEntries " + expectedEntries);
        }
        this.file = file;
        this.indexFile = file.resolveSibling(file.getFileName() + INDEX_SUFFIX);
        this.buffer = arena.allocate(BUFFER_SIZE);
        this.bufferView = buffer.asByteBuffer();
        this.indexBuffer = arena.allocate(INDEX_BUFFER_SIZE);
        try {
            bloom = new BloomFilter.Builder(expectedEntries, BloomFilter.Layout.STANDARD);
            data = io.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            index = io.open(
                    indexFile,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException | Error e) {
            boolean created = data != null;
            release();
            if (created) {
                io.delete(file);
            }
            throw e;
        }
    }

    /**
     * Appends {@code e}.
     *
     * @throws IllegalArgumentException if the key is not strictly greater (in {@link Keys#ORDER}) than the
     *                                  previous entry's key; nothing is written then
     * @throws IllegalStateException    after {@link #finish()} or {@link #close()}
     * @throws IOException              if writing failed; the writer must then be closed
     */
    public void add(Entry e) throws IOException {
        requireOpen();
        byte[] key = e.key();
        if (lastKeySegment != null && compareToLastKey(MemorySegment.ofArray(key), 0, key.length) <= 0) {
            throw new IllegalArgumentException("key " + Keys.toDisplay(key) + " does not sort after the previous key "
                    + Keys.toDisplay(lastKeySegment
                            .asSlice(lastKeyOffset, lastKeyLength)
                            .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        }
        long recordOffset = position;
        long size = RECORD_HEADER_SIZE + EntryFormat.encodedSize(e);
        if (size <= BUFFER_SIZE) {
            if (bufferUsed + size > BUFFER_SIZE) {
                flushBuffer();
            }
            writeRecord(e, buffer.asSlice(bufferUsed, size));
            bufferUsed += (int) size;
        } else {
            flushBuffer();
            try (Arena big = Arena.ofConfined()) {
                MemorySegment record = big.allocate(size);
                writeRecord(e, record);
                SstableWriter.writeFully(data, record);
            }
        }
        position += size;
        added(recordOffset, key, e.isTombstone(), e.version());
    }

    /**
     * Appends the entry encoded ({@link EntryFormat}) at {@code offset} of {@code src}, copying its bytes
     * as they are (a flush from a memtable's slabs).
     *
     * @throws IllegalArgumentException if the bytes are not a valid entry, or its key does not sort
     *                                  after the previous entry's key; nothing is written then
     * @throws IllegalStateException    after {@link #finish()} or {@link #close()}
     * @throws IOException              if writing failed; the writer must then be closed
     */
    public void addEncoded(MemorySegment src, long offset) throws IOException {
        requireOpen();
        long entrySize = EntryFormat.checkedSize(src, offset, src.byteSize());
        long keyOffset = EntryFormat.keyOffset(offset);
        int keyLength = EntryFormat.keyLength(src, offset);
        if (lastKeySegment != null && compareToLastKey(src, keyOffset, keyLength) <= 0) {
            byte[] key = src.asSlice(keyOffset, keyLength).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            throw new IllegalArgumentException("key " + Keys.toDisplay(key) + " does not sort after the previous key "
                    + Keys.toDisplay(lastKeySegment
                            .asSlice(lastKeyOffset, lastKeyLength)
                            .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        }
        long recordOffset = position;
        long size = RECORD_HEADER_SIZE + entrySize;
        if (size <= BUFFER_SIZE) {
            if (bufferUsed + size > BUFFER_SIZE) {
                flushBuffer();
            }
            // copied and checksummed in the buffer itself: no slice, array or ByteBuffer per entry
            long at = (long) bufferUsed + RECORD_HEADER_SIZE;
            MemorySegment.copy(src, offset, buffer, at, entrySize);
            entryCrc.reset();
            bufferView.limit((int) (at + entrySize)).position((int) at);
            entryCrc.update(bufferView);
            bufferView.clear();
            buffer.set(I32, bufferUsed, (int) entryCrc.getValue());
            bufferUsed += (int) size;
        } else { // a large entry: its checksum through the buffer, its bytes straight from where they lie
            flushBuffer();
            entryCrc.reset();
            Crc32c.update(entryCrc, src.asSlice(offset, entrySize));
            buffer.set(I32, 0, (int) entryCrc.getValue());
            SstableWriter.writeFully(data, buffer.asSlice(0, RECORD_HEADER_SIZE));
            SstableWriter.writeFully(data, src.asSlice(offset, entrySize));
        }
        position += size;
        if (indexBufferUsed == INDEX_BUFFER_SIZE) {
            flushIndexBuffer();
        }
        indexBuffer.set(I64, indexBufferUsed, recordOffset);
        indexBufferUsed += 8;
        bloom.add(src, keyOffset, keyLength);
        counted(EntryFormat.isTombstone(src, offset), EntryFormat.version(src, offset));
        lastKeySegment = src;
        lastKeyOffset = keyOffset;
        lastKeyLength = keyLength;
    }

    /** Compares a key in a segment with the previous entry's key, wherever that one lies. */
    private int compareToLastKey(MemorySegment src, long keyOffset, int keyLength) {
        long mismatch = MemorySegment.mismatch(
                src, keyOffset, keyOffset + keyLength, lastKeySegment, lastKeyOffset, lastKeyOffset + lastKeyLength);
        if (mismatch < 0) {
            return 0;
        }
        if (mismatch == keyLength) {
            return -1;
        }
        if (mismatch == lastKeyLength) {
            return 1;
        }
        return Integer.compare(
                src.get(java.lang.foreign.ValueLayout.JAVA_BYTE, keyOffset + mismatch) & 0xFF,
                lastKeySegment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, lastKeyOffset + mismatch) & 0xFF);
    }

    /** Statistics of an entry just written. */
    private void counted(boolean tombstone, long version) {
        entryCount++;
        if (tombstone) {
            tombstoneCount++;
        }
        minVersion = Math.min(minVersion, version);
        maxVersion = Math.max(maxVersion, version);
    }

    /** Index, Bloom filter and statistics of a record just written at {@code recordOffset}. */
    private void added(long recordOffset, byte[] key, boolean tombstone, long version) throws IOException {
        if (indexBufferUsed == INDEX_BUFFER_SIZE) {
            flushIndexBuffer();
        }
        indexBuffer.set(I64, indexBufferUsed, recordOffset);
        indexBufferUsed += 8;
        bloom.add(key);
        counted(tombstone, version);
        lastKeySegment = MemorySegment.ofArray(key);
        lastKeyOffset = 0;
        lastKeyLength = key.length;
    }

    /** Writes {@code crc32c | entry} into {@code record}, which is exactly the record's size. */
    private void writeRecord(Entry e, MemorySegment record) {
        MemorySegment entry = record.asSlice(RECORD_HEADER_SIZE);
        EntryFormat.write(e, entry, 0);
        entryCrc.reset();
        Crc32c.update(entryCrc, entry);
        record.set(I32, 0, (int) entryCrc.getValue());
    }

    /**
     * Completes the table: appends the index, the Bloom filter and the footer, fsyncs the file (data and
     * metadata) and closes it, and deletes the side file. The caller then renames the file and fsyncs the
     * directory.
     *
     * @return counts, size in bytes and version range of the table
     * @throws IllegalStateException after {@code finish()} or {@link #close()}
     * @throws IOException if writing or syncing failed; the table is then unusable and {@link #close()}
     *                     deletes it
     */
    public SstableSummary finish() throws IOException {
        requireOpen();
        flushBuffer();
        flushIndexBuffer();
        long dataLength = position;
        long indexLength = 8 * entryCount;
        for (long done = 0; done < indexLength; ) {
            long n = index.transferTo(done, indexLength - done, data);
            if (n <= 0) {
                throw new IOException(
                        indexFile + ": index side file ended after " + done + " of " + indexLength + " bytes");
            }
            done += n;
        }
        MemorySegment bloomSection = bloom.section();
        SstableWriter.writeFully(data, bloomSection);
        long bloomOffset = dataLength + indexLength;
        boolean empty = entryCount == 0;
        Footer footer = new Footer(
                1,
                dataLength,
                dataLength,
                indexLength,
                bloomOffset,
                bloomSection.byteSize(),
                entryCount,
                tombstoneCount,
                empty ? 0 : minVersion,
                empty ? 0 : maxVersion,
                0,
                0,
                0,
                (int) indexCrc.getValue(),
                Crc32c.of(bloomSection));
        MemorySegment footerBytes = buffer.asSlice(0, Footer.V1_SIZE);
        footer.writeTo(footerBytes);
        SstableWriter.writeFully(data, footerBytes);
        long fileBytes = bloomOffset + bloomSection.byteSize() + Footer.V1_SIZE;
        data.force(true);
        release();
        io.delete(indexFile);
        state = State.FINISHED;
        return new SstableSummary(entryCount, fileBytes, footer.minVersion(), footer.maxVersion(), tombstoneCount);
    }

    /**
     * Abandons an unfinished table: closes and deletes the file and its side file. No-op after
     * {@link #finish()} or a previous {@code close()}.
     */
    @Override
    public void close() throws IOException {
        if (state != State.OPEN) {
            return;
        }
        state = State.CLOSED;
        release();
        io.delete(file);
        io.delete(indexFile);
    }

    private void requireOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("writer of " + file + " is " + state);
        }
    }

    private void flushBuffer() throws IOException {
        if (bufferUsed > 0) {
            SstableWriter.writeFully(data, buffer.asSlice(0, bufferUsed));
            bufferUsed = 0;
        }
    }

    private void flushIndexBuffer() throws IOException {
        if (indexBufferUsed > 0) {
            MemorySegment chunk = indexBuffer.asSlice(0, indexBufferUsed);
            Crc32c.update(indexCrc, chunk);
            SstableWriter.writeFully(index, chunk);
            indexBufferUsed = 0;
        }
    }

    /** Closes channels and frees off-heap memory; safe to call more than once. */
    private void release() throws IOException {
        IOException failure = SstableWriter.closeAll(data, index);
        data = null;
        index = null;
        if (bloom != null) {
            bloom.close();
            bloom = null;
        }
        if (arena.scope().isAlive()) {
            arena.close();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
