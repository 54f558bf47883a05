package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.os.NativeFile;
import io.ringbase.os.PageResidency;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.EntryFormat;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads the blocks of one {@link BlockTable} ({@code docs/format.md}, sections 4.8-4.10): through the
 * table's mapping, from the block cache, or with {@code pread(2)} while the table's {@link ReadPathGauge}
 * says it is out of the page cache; checks each block's checksum, compression code and length, and
 * decompresses it into the reader's {@link EntryLocation} buffer where it is not read in place. Shared
 * by the table's readers: each call uses the caller's {@code EntryLocation} and its thread's scratch.
 */
final class BlockLoader {

    /** One point read in this many (per thread) is timed for the gauge while reads go through the mapping. */
    private static final int SAMPLE_MASK = 7;

    private final Path path;
    /** The table's data section, mapped. */
    private final MemorySegment data;
    /** Format versions 3 and 4: blocks hold compact entries (but those stored {@link BlockCompression#SINGLE_ENTRY}). */
    private final boolean compact;
    /** The block cache, or {@code null} when it holds nothing (so point reads skip it, and their buffers stay block-sized). */
    private final BlockCache cache;

    private final long tableId = BlockCache.newTableId();
    /** The table opened for {@code pread}, or {@code null} (every read then goes through the mapping). */
    private final NativeFile file;
    /** Whether reads go through the mapping or {@link #file} now; {@code null} with no file. */
    private final ReadPathGauge gauge;

    /**
     * @param data    the table's data section, mapped
     * @param compact whether blocks hold compact entries (format versions 3 and 4)
     * @param file    the table opened for {@code pread}, or {@code null}: reads only through the mapping
     * @param cache   the block cache (one of no capacity: none)
     */
    BlockLoader(Path path, MemorySegment data, boolean compact, NativeFile file, BlockCache cache) {
        this.path = path;
        this.data = data;
        this.compact = compact;
        this.file = file;
        this.cache = cache.capacityBytes() > 0 ? cache : null;
        this.gauge = file == null ? null : new ReadPathGauge(PageResidency.residentFraction(data));
    }

    /** Whether reads of this table's blocks go to the device now ({@code pread}), not the mapping. */
    boolean preads() {
        return gauge != null && gauge.preads();
    }

    /** {@link NativeFile#willNeed} of {@code bytes} at {@code offset} of the data section, if the file is open for it. */
    void willNeed(long offset, long bytes) {
        if (file != null) {
            file.willNeed(offset, bytes);
        }
    }

    /** How the table's point reads reach its blocks now; {@code null} if only through the mapping. */
    ReadPathGauge gauge() {
        return gauge;
    }

    /**
     * Reads block {@code b}, stored in {@code stored} bytes at {@code offset} of the data section
     * ({@code raw} bytes once decompressed), and points {@code loc}'s block fields at its raw entries: in
     * the mapping if it is stored raw and read through the mapping, else in {@code loc}'s buffer,
     * decompressed, copied from the block cache or read with {@code pread}.
     *
     * @param pointRead whether this is a point read: it looks in the block cache first and fills it on a
     *                  miss, and a sample of its reads through the mapping is timed for the gauge (scans and
     *                  compaction read around the cache: filling it from the block a seek starts in was
     *                  measured slower, and a full pass would push hot blocks out)
     * @param mayPread  whether to read the block with {@code pread} if the gauge says so
     * @throws CorruptionException if its checksum, compression code or length is wrong
     * @throws IOException         if {@code pread} failed (EIO...)
     */
    void load(long b, EntryLocation loc, boolean pointRead, boolean mayPread, long offset, long stored, int raw)
            throws IOException {
        if (gauge == null || !mayPread) {
            loadMapped(b, loc, pointRead, offset, stored, raw, null);
            return;
        }
        Scratch scratch = SCRATCH.get();
        if (gauge.preads() && stored + BlockTable.TRAILER_SIZE <= Scratch.BYTES) {
            if (pointRead && cache != null && cache.get(tableId, b, loc.buffer(BlockCache.FRAME_BYTES)) == raw) {
                located(b, loc, loc.bufferSegment(), 0, raw, compact);
                return;
            }
            readBlock(b, loc, pointRead, offset, (int) stored, raw, scratch);
            return;
        }
        if (pointRead && (++scratch.loads & SAMPLE_MASK) == 0) {
            long begin = System.nanoTime();
            loadMapped(b, loc, true, offset, stored, raw, scratch);
            gauge.record(System.nanoTime() - begin);
            return;
        }
        loadMapped(b, loc, pointRead, offset, stored, raw, scratch);
    }

    /**
     * {@link #load} through the mapping, of the block of {@code stored} bytes at {@code offset}.
     *
     * @param scratch the thread's scratch if the caller has it, else {@code null}
     */
    private void loadMapped(
            long b, EntryLocation loc, boolean cached, long offset, long stored, int raw, Scratch scratch)
            throws CorruptionException {
        byte compression = data.get(U8, offset + stored);
        int crc = data.get(I32, offset + stored + 1);
        if (compression == BlockCompression.NONE || (compact && compression == BlockCompression.SINGLE_ENTRY)) {
            if (Crc32c.of(data, offset, stored + 1) != crc) {
                throw new CorruptionException(path, offset, "block " + b + " checksum mismatch");
            }
            if (stored != raw) {
                throw new CorruptionException(
                        path, offset, "raw block " + b + " of " + stored + " bytes, the index says " + raw);
            }
            located(b, loc, data, offset, offset + stored, compact && compression == BlockCompression.NONE);
            return;
        }
        if (cached
                && cache != null
                && cache.get(tableId, b, loc.buffer(BlockCache.FRAME_BYTES)) == raw) { // checked when it was put
            located(b, loc, loc.bufferSegment(), 0, raw, compact);
            return;
        }
        if (scratch == null) {
            scratch = SCRATCH.get();
        }
        MemorySegment input = stored + 1 <= Scratch.BYTES
                ? scratch.nativeInput
                : Arena.ofAuto().allocate(stored + 1);
        ByteBuffer inputView = input == scratch.nativeInput ? scratch.nativeInputView : input.asByteBuffer();
        MemorySegment.copy(data, offset, input, 0, stored + 1);
        checkCrc(b, offset, inputView, (int) stored, crc, scratch);
        inflate(b, loc, cached, offset, inputView, (int) stored, compression, raw);
    }

    /**
     * {@link #load} with {@code pread}: the block's payload and trailer into {@code scratch}, checked, then
     * copied or decompressed into {@code loc}'s buffer; the read's time goes to the gauge.
     */
    private void readBlock(long b, EntryLocation loc, boolean cached, long offset, int stored, int raw, Scratch scratch)
            throws IOException {
        long begin = System.nanoTime();
        file.read(offset, scratch.nativeInput, stored + BlockTable.TRAILER_SIZE);
        gauge.record(System.nanoTime() - begin);
        MemorySegment input = scratch.nativeInput;
        byte compression = input.get(U8, stored);
        checkCrc(b, offset, scratch.nativeInputView, stored, input.get(I32, stored + 1), scratch);
        if (compression == BlockCompression.NONE || (compact && compression == BlockCompression.SINGLE_ENTRY)) {
            if (stored != raw) {
                throw new CorruptionException(
                        path, offset, "raw block " + b + " of " + stored + " bytes, the index says " + raw);
            }
            MemorySegment.copy(input, 0, loc.buffer(stored), 0, stored);
            located(b, loc, loc.bufferSegment(), 0, stored, compact && compression == BlockCompression.NONE);
            return;
        }
        inflate(b, loc, cached, offset, scratch.nativeInputView, stored, compression, raw);
    }

    /**
     * Checks the CRC32C of {@code input[0, stored]} (payload and compression code) against {@code crc};
     * moves {@code input}'s position and limit.
     */
    private void checkCrc(long b, long offset, ByteBuffer input, int stored, int crc, Scratch scratch)
            throws CorruptionException {
        scratch.crc.reset();
        scratch.crc.update(input.clear().limit(stored + 1));
        if ((int) scratch.crc.getValue() != crc) {
            throw new CorruptionException(path, offset, "block " + b + " checksum mismatch");
        }
    }

    /**
     * Decompresses the checked block payload {@code input[0, stored)} into {@code loc}'s buffer, puts it in
     * the block cache if {@code cached}, and points {@code loc} at it.
     */
    private void inflate(
            long b,
            EntryLocation loc,
            boolean cached,
            long offset,
            ByteBuffer input,
            int stored,
            byte compression,
            int raw)
            throws CorruptionException {
        if (compression != BlockCompression.LZ4) {
            throw new CorruptionException(
                    path, offset + stored, "block " + b + " has unknown compression code " + (compression & 0xFF));
        }
        MemorySegment out = loc.buffer(raw);
        BlockCompression.decompress(path, offset, input, stored, loc.bufferView(), raw);
        if (cached && cache != null) {
            cache.put(tableId, b, out, raw);
        }
        located(b, loc, loc.bufferSegment(), 0, raw, compact);
    }

    /**
     * Points {@code loc} at the raw block {@code [start, rawEnd)} of {@code segment}: its entries end where
     * its restart array begins ({@code restartCount} u32 offsets, then the count).
     *
     * @param compactEntries whether the block holds compact entries (else section 2.1 ones)
     * @throws CorruptionException if the restart count or an offset does not fit the block
     */
    private void located(
            long b, EntryLocation loc, MemorySegment segment, long start, long rawEnd, boolean compactEntries)
            throws CorruptionException {
        long count = segment.get(I32, rawEnd - 4) & 0xFFFF_FFFFL;
        long entriesEnd = rawEnd - 4 - 4 * count;
        if (count < 1 || entriesEnd < start + minEntrySize(compactEntries) || segment.get(I32, entriesEnd) != 0) {
            throw new CorruptionException(
                    path,
                    segment == data ? start : -1,
                    "block " + b + " has a bad restart array (" + count + " restarts in " + (rawEnd - start)
                            + " bytes)");
        }
        loc.blockSegment = segment;
        loc.blockStart = start;
        loc.blockEnd = entriesEnd;
        loc.restartCount = (int) count;
        loc.blockCompact = compactEntries;
    }

    static int minEntrySize(boolean compactEntries) {
        return compactEntries ? CompactEntry.MIN_SIZE : EntryFormat.HEADER_SIZE;
    }

    /**
     * Per-thread room for a compressed block on its way to decompression, or a block read with {@code pread},
     * so that neither a point read nor an iterator allocates for it (blocks of the default size take at most 8 KiB compressed).
     */
    private static final class Scratch {
        static final int BYTES = 16 * 1024;
        /**
         * Where {@code pread} puts a block, payload and trailer, and where a compressed block is copied from the
         * mapping to be checked and decompressed (freed with the thread's scratch). Native, like everything
         * else the engine reads ({@link SstableWriter}'s buffers say why).
         */
        final MemorySegment nativeInput = Arena.ofAuto().allocate(BYTES, 8);
        /** A view of {@link #nativeInput} for the checksum and the LZ4 codec. */
        final ByteBuffer nativeInputView = nativeInput.asByteBuffer();

        final CRC32C crc = new CRC32C();
        /** Point reads through the mapping so far, for sampling. */
        int loads;
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
}
