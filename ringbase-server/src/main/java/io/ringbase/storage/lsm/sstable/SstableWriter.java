package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import io.ringbase.storage.Layouts;
import io.ringbase.storage.lsm.io.FileIo;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes one SSTable in format version 5 ({@code docs/format.md}, sections 4.9 to 4.11; versions 2 to 4,
 * for tests of the reader) from entries given in strictly increasing key order, in bounded memory:
 * entries are gathered into a raw block of about {@link #DEFAULT_BLOCK_BYTES} in the compact encoding
 * ({@link CompactEntry}: each key stored as the bytes it does not share with the previous one), ended by
 * its restart points (the offset of every 8th entry, whose key is stored whole), which is written
 * LZ4-compressed if that saves an eighth of it, else raw, with its checksum trailer; an entry larger
 * than the block size is written raw as a block of its own in the section 2.1 encoding, straight from
 * where it lies, so a reader reaches its value in place. The index entries (one per block) stream to the side file
 * {@code <file>.idx}, appended to the table at {@link #finish()} and then deleted, and the Bloom filter
 * is built off-heap. Memory does not grow with the number of entries.
 *
 * <p>Usage: {@code try (var w = new SstableWriter(tmp, n)) { w.add(...); ...; summary = w.finish(); }};
 * a writer closed without {@code finish()} deletes what it wrote. Not thread-safe: one thread at a time.
 */
public final class SstableWriter implements Closeable {

    /** Raw bytes after which a block is closed (RocksDB's default {@code block_size}, 4 KiB). */
    public static final int DEFAULT_BLOCK_BYTES = 4096;
    /** Every this many entries of a block, its offset is a restart point (RocksDB restarts every 16 keys). */
    static final int RESTART_INTERVAL = 8;
    /** Bytes of file output gathered before a write. */
    private static final int OUT_BUFFER_SIZE = 1 << 20;
    /** Bytes of index entries gathered before a write to the side file (an entry holds a key of up to 64 KiB). */
    private static final int INDEX_BUFFER_SIZE = 128 * 1024;

    private static final String INDEX_SUFFIX = ".idx";

    /**
     * Bytes of table written between two {@code fdatasync}s of the file while it is written (RocksDB's
     * {@code bytes_per_sync}): without them a large table (a compaction's, or a stream's ingest of 128 MiB)
     * piled up that much dirty page cache, and its final fsync, or the kernel's writeback throttling,
     * stalled every other writer of the disk at once: WAL fsyncs of 0.4-0.8 s on all four nodes of a join.
     */
    static final long SYNC_EVERY_BYTES = 8L << 20;

    private enum State {
        OPEN,
        FINISHED,
        CLOSED
    }

    private final Path file;
    private final Path indexFile;
    private final FileIo io;
    private final int blockBytes;
    /** 5, or 2 to 4 (version 2's blocks hold section 2.1 entries) for tests of the reader. */
    private final int formatVersion;
    /** Where {@link #add(Entry)} encodes an entry of at most a block before adding it as encoded. */
    private final MemorySegment entryScratch;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment out;
    private final MemorySegment indexBuffer;
    private final CRC32C blockCrc = new CRC32C();
    private final CRC32C indexCrc = new CRC32C();
    private FileChannel data;
    private FileChannel index;
    private BloomFilter.Builder bloom;
    private State state = State.OPEN;

    /*
     * The writer's buffers are native (its arena), as are the memtable slabs and tables it reads: the
     * engine's MemorySegment code then meets one segment class, where heap segments over byte[] scratch
     * made C2 throw compiled code away (class-check traps) at a node's first flush and compaction.
     */
    /** The raw block being gathered: entries back to back. */
    private final MemorySegment blockSegment;

    private final ByteBuffer blockBuffer;
    private int blockUsed;
    /** Offsets in {@link #blockSegment} of the restart points of the block being gathered. */
    private int[] restarts = new int[16];

    private int restartCount;
    private int blockEntries;
    /** The version of the block's last restart point: version 3 stores the others' as differences from it. */
    private long restartVersion;
    /** Where a block is compressed to. */
    private final MemorySegment compressed;

    private final ByteBuffer compressedBuffer;
    /** The previous entry's key, copied (an input's memory may change once the caller moves on). */
    private final MemorySegment lastKey;

    private int lastKeyLength = -1;

    private int outUsed;
    private int indexUsed;
    /** File offset of the next byte to write. */
    private long position;
    /** File offset up to which the data was last synced while writing. */
    private long syncedTo;

    private long indexLength;
    private long blockCount;
    /** The footer's counts of the entries added. */
    private final EntryStats stats = new EntryStats();

    /**
     * Creates {@code file} (which must not exist; callers pass a {@code *.sst.tmp} path and rename it after
     * {@link #finish()}) and its side file {@code file + ".idx"} (replaced if it exists).
     *
     * @param expectedEntries an upper bound on the number of entries, &ge; 0, which sizes the Bloom
     *                        filter (11 bits per entry, 1.375 bytes off-heap per entry while writing);
     *                        more entries are accepted but raise the false-positive rate
     * @throws java.nio.file.FileAlreadyExistsException if {@code file} exists
     * @throws IllegalArgumentException if {@code expectedEntries} is negative
     */
    public SstableWriter(Path file, long expectedEntries) throws IOException {
        this(FileIo.DISK, file, expectedEntries);
    }

    /**
     * {@link #SstableWriter(Path, long)} through {@code io}: the table and its side file are created,
     * written, fsynced and deleted by {@code io}'s channels and calls.
     */
    public SstableWriter(FileIo io, Path file, long expectedEntries) throws IOException {
        this(io, file, expectedEntries, DEFAULT_BLOCK_BYTES);
    }

    /**
     * {@link #SstableWriter(FileIo, Path, long)} with blocks of {@code blockBytes} raw bytes.
     *
     * @throws IllegalArgumentException if {@code blockBytes} is not in 256 .. 1 MiB
     */
    public SstableWriter(FileIo io, Path file, long expectedEntries, int blockBytes) throws IOException {
        this(io, file, expectedEntries, blockBytes, Footer.LATEST_VERSION);
    }

    /**
     * {@link #SstableWriter(FileIo, Path, long, int)} in format version {@code formatVersion}: 5, or 2 to 4
     * for tests that the reader still reads what earlier releases wrote.
     *
     * @throws IllegalArgumentException if {@code formatVersion} is not 2 to 5
     */
    SstableWriter(FileIo io, Path file, long expectedEntries, int blockBytes, int formatVersion) throws IOException {
        if (formatVersion < 2 || formatVersion > Footer.LATEST_VERSION) {
            throw new IllegalArgumentException("cannot write SSTable format version " + formatVersion);
        }
        this.formatVersion = formatVersion;
        this.io = java.util.Objects.requireNonNull(io, "io");
        if (expectedEntries < 0) {
            throw new IllegalArgumentException("negative expectedEntries " + expectedEntries);
        }
        if (blockBytes < 256 || blockBytes > (1 << 20)) {
            throw new IllegalArgumentException("block size " + blockBytes + " bytes, not in 256 .. 1 MiB");
        }
        this.file = file;
        this.indexFile = file.resolveSibling(file.getFileName() + INDEX_SUFFIX);
        this.blockBytes = blockBytes;
        // a block is closed once it reaches blockBytes, and takes entries of at most blockBytes (their
        // compact encoding may be a few bytes longer); then one restart offset per RESTART_INTERVAL
        // entries of at least the smallest entry's size, and their count
        int smallest = formatVersion == 2 ? EntryFormat.HEADER_SIZE : CompactEntry.MIN_SIZE;
        int blockLength = 2 * blockBytes + 16 + 4 * (2 * blockBytes / smallest / RESTART_INTERVAL + 2);
        this.blockSegment = arena.allocate(blockLength, 8);
        this.blockBuffer = blockSegment.asByteBuffer();
        this.entryScratch = arena.allocate(blockBytes, 8);
        this.compressed = arena.allocate(BlockCompression.maxCompressedLength(blockLength), 8);
        this.compressedBuffer = compressed.asByteBuffer();
        this.lastKey = arena.allocate(Entry.MAX_KEY_BYTES);
        this.out = arena.allocate(OUT_BUFFER_SIZE);
        this.indexBuffer = arena.allocate(INDEX_BUFFER_SIZE);
        try {
            bloom = new BloomFilter.Builder(expectedEntries, BloomFilter.Layout.of(formatVersion));
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
        long size = EntryFormat.encodedSize(e);
        if (size <= blockBytes) {
            EntryFormat.write(e, entryScratch, 0);
            addEncoded(entryScratch, 0);
        } else {
            try (Arena big = Arena.ofConfined()) {
                MemorySegment encoded = big.allocate(size);
                EntryFormat.write(e, encoded, 0);
                addEncoded(encoded, 0);
            }
        }
    }

    /**
     * Appends the entry encoded ({@link EntryFormat}) at {@code offset} of {@code src} (a flush from a
     * memtable's slabs, a merge from an input table), copying its parts straight into the block. Nothing
     * of {@code src} is kept after the call returns.
     *
     * @throws IllegalArgumentException if the bytes are not a valid entry, or its key does not sort
     *                                  after the previous entry's key; nothing is written then
     * @throws IllegalStateException    after {@link #finish()} or {@link #close()}
     * @throws IOException              if writing failed; the writer must then be closed
     */
    public void addEncoded(MemorySegment src, long offset) throws IOException {
        requireOpen();
        long size = EntryFormat.checkedSize(src, offset, src.byteSize());
        int shared = checkOrder(src, EntryFormat.keyOffset(offset), EntryFormat.keyLength(src, offset));
        if (size > blockBytes) {
            writeOwnBlock(src, offset, size);
            return;
        }
        boolean restart = blockEntries++ % RESTART_INTERVAL == 0;
        if (restart) {
            if (restartCount == restarts.length) {
                restarts = java.util.Arrays.copyOf(restarts, 2 * restartCount);
            }
            restarts[restartCount++] = blockUsed;
        }
        if (formatVersion == 2) {
            MemorySegment.copy(src, offset, blockSegment, blockUsed, size);
            blockUsed += (int) size;
        } else {
            blockUsed = (int) CompactEntry.write(
                    src, offset, restart ? 0 : shared, restart, restartVersion, blockSegment, blockUsed);
            if (restart) {
                restartVersion = EntryFormat.version(src, offset);
            }
        }
        counted(src, offset);
        if (blockUsed >= blockBytes) {
            finishBlock();
        }
    }

    /** Statistics, Bloom filter and last key of the entry at {@code at} of {@code segment}. */
    private void counted(MemorySegment segment, long at) {
        int keyLength = EntryFormat.keyLength(segment, at);
        long keyOffset = EntryFormat.keyOffset(at);
        bloom.add(segment, keyOffset, keyLength);
        MemorySegment.copy(segment, keyOffset, lastKey, 0, keyLength);
        lastKeyLength = keyLength;
        stats.add(segment, at);
    }

    /**
     * Throws unless the key at {@code keyOffset} of {@code src} sorts after the previous entry's key.
     *
     * @return how many first bytes the two keys share (0 for the first key)
     */
    private int checkOrder(MemorySegment src, long keyOffset, int keyLength) {
        if (lastKeyLength < 0) {
            return 0;
        }
        long mismatch = MemorySegment.mismatch(src, keyOffset, keyOffset + keyLength, lastKey, 0, lastKeyLength);
        boolean after = mismatch >= 0
                && mismatch != keyLength
                && (mismatch == lastKeyLength
                        || (src.get(U8, keyOffset + mismatch) & 0xFF) > (lastKey.get(U8, mismatch) & 0xFF));
        if (!after) {
            throw new IllegalArgumentException("key " + Keys.toDisplay(EntryFormat.copyOf(src, keyOffset, keyLength))
                    + " does not sort after the previous key "
                    + Keys.toDisplay(EntryFormat.copyOf(lastKey, 0, lastKeyLength)));
        }
        return (int) mismatch;
    }

    /** Writes the gathered block, compressed if that saves an eighth of it, with its trailer and index entry. */
    private void finishBlock() throws IOException {
        if (blockUsed == 0) {
            return;
        }
        for (int i = 0; i < restartCount; i++) {
            blockSegment.set(I32, blockUsed + 4L * i, restarts[i]);
        }
        blockSegment.set(I32, blockUsed + 4L * restartCount, restartCount);
        int raw = blockUsed + 4 * restartCount + 4;
        int n = BlockCompression.compress(blockBuffer, raw, compressedBuffer);
        long blockOffset = position;
        blockCrc.reset();
        if (n <= raw - raw / 8) {
            write(compressed, n);
            blockCrc.update(compressedBuffer.clear().limit(n));
            trailer(BlockCompression.LZ4);
            indexEntry(blockOffset, n, raw);
        } else {
            write(blockSegment, raw);
            blockCrc.update(blockBuffer.clear().limit(raw));
            trailer(BlockCompression.NONE);
            indexEntry(blockOffset, raw, raw);
        }
        blockUsed = 0;
        restartCount = 0;
        blockEntries = 0;
    }

    /**
     * Writes the entry at {@code offset} of {@code src} as a raw block of its own (it is larger than a
     * block), in the section 2.1 encoding (code {@link BlockCompression#SINGLE_ENTRY} in version 3).
     */
    private void writeOwnBlock(MemorySegment src, long offset, long size) throws IOException {
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("entry of " + size + " bytes");
        }
        finishBlock();
        counted(src, offset);
        long blockOffset = position;
        flushOut();
        MemorySegment entry = src.asSlice(offset, size);
        blockCrc.reset();
        Crc32c.update(blockCrc, entry);
        writeFully(data, entry);
        position += size;
        out.set(I32, outUsed, 0); // one restart point, at the entry
        out.set(I32, outUsed + 4, 1);
        blockCrc.update(out.asSlice(outUsed, 8).asByteBuffer());
        outUsed += 8;
        position += 8;
        trailer(formatVersion == 2 ? BlockCompression.NONE : BlockCompression.SINGLE_ENTRY);
        indexEntry(blockOffset, size + 8, size + 8);
    }

    /** Appends the compression byte and the block checksum (over the payload and that byte). */
    private void trailer(byte compression) throws IOException {
        blockCrc.update(compression);
        reserveOut(BlockTable.TRAILER_SIZE);
        out.set(U8, outUsed, compression);
        out.set(I32, outUsed + 1, (int) blockCrc.getValue());
        outUsed += BlockTable.TRAILER_SIZE;
        position += BlockTable.TRAILER_SIZE;
    }

    /** Appends the index entry of the block just written; its last key is {@link #lastKey}. */
    private void indexEntry(long blockOffset, long stored, long raw) throws IOException {
        int size = BlockTable.INDEX_ENTRY_HEADER + lastKeyLength;
        if (indexUsed + size > INDEX_BUFFER_SIZE) {
            flushIndex();
        }
        indexBuffer.set(I64, indexUsed, blockOffset);
        indexBuffer.set(I32, indexUsed + 8, (int) stored);
        indexBuffer.set(I32, indexUsed + 12, (int) raw);
        indexBuffer.set(I32, indexUsed + 16, lastKeyLength);
        MemorySegment.copy(lastKey, 0, indexBuffer, indexUsed + BlockTable.INDEX_ENTRY_HEADER, lastKeyLength);
        indexUsed += size;
        indexLength += size;
        blockCount++;
    }

    /** Bytes of data blocks written so far (the index, filter and footer come at {@link #finish}). */
    public long bytesWritten() {
        return position;
    }

    /**
     * Completes the table: writes the last block, appends the index (its entries from the side file,
     * then their start offsets), the Bloom filter and the footer, fsyncs the file (data and metadata),
     * closes it, and deletes the side file. The caller then renames the file and fsyncs the directory.
     *
     * @return counts, size in bytes and version range of the table
     * @throws IllegalStateException after {@code finish()} or {@link #close()}
     * @throws IOException if writing or syncing failed; the table is then unusable and {@link #close()}
     *                     deletes it
     */
    public SstableSummary finish() throws IOException {
        requireOpen();
        finishBlock();
        flushOut();
        flushIndex();
        long dataLength = position;
        for (long done = 0; done < indexLength; ) {
            long n = index.transferTo(done, indexLength - done, data);
            if (n <= 0) {
                throw new IOException(
                        indexFile + ": index side file ended after " + done + " of " + indexLength + " bytes");
            }
            done += n;
        }
        position += indexLength;
        writeEntryStarts();
        flushOut();
        MemorySegment bloomSection = bloom.section();
        writeFully(data, bloomSection);
        long fullIndexLength = indexLength + 8 * blockCount;
        Footer footer = stats.footer(
                formatVersion,
                dataLength,
                fullIndexLength,
                bloomSection.byteSize(),
                blockCount,
                (int) indexCrc.getValue(),
                Crc32c.of(bloomSection));
        MemorySegment footerBytes = out.asSlice(0, footer.size());
        footer.writeTo(footerBytes);
        writeFully(data, footerBytes);
        long fileBytes = dataLength + fullIndexLength + bloomSection.byteSize() + footer.size();
        data.force(true);
        release();
        io.delete(indexFile);
        state = State.FINISHED;
        return new SstableSummary(
                footer.entryCount(), fileBytes, footer.minVersion(), footer.maxVersion(), footer.tombstoneCount());
    }

    /**
     * Appends the {@code entryStart} array: reads the side file again, in chunks, for each entry's key
     * length (so the offsets need no memory per block while the table is written).
     */
    private void writeEntryStarts() throws IOException {
        // the index buffer, flushed by now, as the chunk: native, like the writer's other buffers
        ByteBuffer chunk = indexBuffer.asByteBuffer().order(Layouts.ORDER);
        long chunkStart = 0;
        chunk.limit(0);
        long p = 0;
        for (long i = 0; i < blockCount; i++) {
            if (p + BlockTable.INDEX_ENTRY_HEADER > chunkStart + chunk.limit()) {
                chunk.clear();
                chunk.limit((int) Math.min(INDEX_BUFFER_SIZE, indexLength - p));
                chunkStart = p;
                while (chunk.hasRemaining()) {
                    if (index.read(chunk, chunkStart + chunk.position()) < 0) {
                        throw new IOException(
                                indexFile + ": index side file ended at " + (chunkStart + chunk.position()));
                    }
                }
                chunk.flip();
            }
            reserveOut(8);
            out.set(I64, outUsed, p);
            indexCrc.update(out.asSlice(outUsed, 8).asByteBuffer());
            outUsed += 8;
            p += BlockTable.INDEX_ENTRY_HEADER + (chunk.getInt((int) (p - chunkStart) + 16) & 0xFFFF_FFFFL);
        }
        if (p != indexLength) {
            throw new IOException(indexFile + ": index entries of " + p + " bytes, " + indexLength + " written");
        }
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

    /** Appends {@code bytes[0, length)} to the file through the output buffer. */
    private void write(MemorySegment bytes, int length) throws IOException {
        for (int done = 0; done < length; ) {
            if (outUsed == OUT_BUFFER_SIZE) {
                flushOut();
            }
            int n = Math.min(length - done, OUT_BUFFER_SIZE - outUsed);
            MemorySegment.copy(bytes, done, out, outUsed, n);
            outUsed += n;
            done += n;
        }
        position += length;
    }

    private void reserveOut(int bytes) throws IOException {
        if (outUsed + bytes > OUT_BUFFER_SIZE) {
            flushOut();
        }
    }

    private void flushOut() throws IOException {
        if (outUsed > 0) {
            writeFully(data, out.asSlice(0, outUsed));
            outUsed = 0;
            // every byte up to position is in the file now
            if (position - syncedTo >= SYNC_EVERY_BYTES) {
                data.force(false); // the table is in no manifest yet: this only spreads the disk writes
                syncedTo = position;
            }
        }
    }

    private void flushIndex() throws IOException {
        if (indexUsed > 0) {
            MemorySegment chunk = indexBuffer.asSlice(0, indexUsed);
            Crc32c.update(indexCrc, chunk);
            writeFully(index, chunk);
            indexUsed = 0;
        }
    }

    /** Writes all of {@code bytes} at the channel's position, in slices a {@code ByteBuffer} can view. */
    static void writeFully(FileChannel channel, MemorySegment bytes) throws IOException {
        for (long p = 0; p < bytes.byteSize(); p += OUT_BUFFER_SIZE) {
            var bb = bytes.asSlice(p, Math.min(OUT_BUFFER_SIZE, bytes.byteSize() - p))
                    .asByteBuffer();
            while (bb.hasRemaining()) {
                channel.write(bb);
            }
        }
    }

    /**
     * Closes every channel given (nulls skipped), even after one fails.
     *
     * @return the first failure, with the later ones suppressed in it, or {@code null}
     */
    static IOException closeAll(FileChannel... channels) {
        IOException failure = null;
        for (FileChannel c : channels) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }

    /** Closes channels and frees off-heap memory; safe to call more than once. */
    private void release() throws IOException {
        IOException failure = closeAll(data, index);
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
