package io.ringbase.storage.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;

import io.ringbase.storage.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The fixed-size footer at the end of every SSTable ({@code docs/format.md}, section 4.5). Offsets and
 * lengths are in bytes from the start of the file.
 *
 * @param dataLength     length of the data section, which starts at byte 0
 * @param indexOffset    offset of the index section (equals {@code dataLength})
 * @param indexLength    length of the index section ({@code 8 * entryCount})
 * @param bloomOffset    offset of the Bloom section ({@code indexOffset + indexLength})
 * @param bloomLength    length of the Bloom section
 * @param entryCount     number of entries
 * @param tombstoneCount number of entries that are tombstones
 * @param minVersion     smallest entry version, 0 for an empty table
 * @param maxVersion     largest entry version, 0 for an empty table
 * @param indexCrc       CRC32C of the index section
 * @param bloomCrc       CRC32C of the Bloom section
 */
record Footer(long dataLength, long indexOffset, long indexLength, long bloomOffset, long bloomLength,
              long entryCount, long tombstoneCount, long minVersion, long maxVersion,
              int indexCrc, int bloomCrc) {

    /** Nine u64 fields, indexCrc, bloomCrc, formatVersion, footerCrc, magic. */
    static final int SIZE = 9 * 8 + 4 + 4 + 4 + 4 + 8;
    /** The format version this code writes and the only one it reads. Persisted: do not change. */
    static final int FORMAT_VERSION = 1;
    /** The ASCII bytes "RBSSTABL" read as a little-endian u64. Persisted: do not change. */
    static final long MAGIC = 0x4C42415453534252L;

    private static final int OFF_INDEX_CRC = 72;
    private static final int OFF_BLOOM_CRC = 76;
    private static final int OFF_VERSION = 80;
    private static final int OFF_FOOTER_CRC = 84;
    private static final int OFF_MAGIC = 88;

    /** Encodes this footer (with format version, footer checksum and magic) into {@code dst} at 0. */
    void writeTo(MemorySegment dst) {
        long[] fields = {dataLength, indexOffset, indexLength, bloomOffset, bloomLength,
                entryCount, tombstoneCount, minVersion, maxVersion};
        for (int i = 0; i < fields.length; i++) {
            dst.set(I64, 8L * i, fields[i]);
        }
        dst.set(I32, OFF_INDEX_CRC, indexCrc);
        dst.set(I32, OFF_BLOOM_CRC, bloomCrc);
        dst.set(I32, OFF_VERSION, FORMAT_VERSION);
        dst.set(I32, OFF_FOOTER_CRC, Crc32c.of(dst.asSlice(0, OFF_FOOTER_CRC)));
        dst.set(I64, OFF_MAGIC, MAGIC);
    }

    /**
     * Reads and checks the footer of the mapped {@code file}: length, magic, format version, footer
     * checksum, then that the sections tile the file exactly.
     *
     * @throws CorruptionException on the first check that fails
     */
    static Footer read(Path file, MemorySegment mapped) throws CorruptionException {
        long fileSize = mapped.byteSize();
        if (fileSize < SIZE) {
            throw new CorruptionException(file, 0, "file of " + fileSize + " bytes is shorter than the " + SIZE + "-byte footer");
        }
        long at = fileSize - SIZE;
        MemorySegment f = mapped.asSlice(at, SIZE);
        long magic = f.get(I64, OFF_MAGIC);
        if (magic != MAGIC) {
            throw new CorruptionException(file, at + OFF_MAGIC, "bad magic 0x" + Long.toHexString(magic) + ", not an SSTable or truncated");
        }
        int version = f.get(I32, OFF_VERSION);
        if (version != FORMAT_VERSION) {
            throw new CorruptionException(file, at + OFF_VERSION, "unsupported SSTable format version " + Integer.toUnsignedString(version));
        }
        if (f.get(I32, OFF_FOOTER_CRC) != Crc32c.of(f.asSlice(0, OFF_FOOTER_CRC))) {
            throw new CorruptionException(file, at, "footer checksum mismatch");
        }
        Footer footer = new Footer(f.get(I64, 0), f.get(I64, 8), f.get(I64, 16), f.get(I64, 24), f.get(I64, 32),
                f.get(I64, 40), f.get(I64, 48), f.get(I64, 56), f.get(I64, 64),
                f.get(I32, OFF_INDEX_CRC), f.get(I32, OFF_BLOOM_CRC));
        footer.checkLayout(file, at);
        return footer;
    }

    private void checkLayout(Path file, long footerOffset) throws CorruptionException {
        boolean ok = dataLength >= 0 && dataLength <= footerOffset && entryCount >= 0 && tombstoneCount >= 0 && tombstoneCount <= entryCount
                && entryCount <= dataLength / SstableWriter.MIN_RECORD_SIZE
                && indexOffset == dataLength
                && indexLength == 8 * entryCount
                && bloomOffset == indexOffset + indexLength
                && bloomLength >= 0 && bloomLength <= footerOffset
                && bloomOffset + bloomLength == footerOffset
                && minVersion <= maxVersion;
        if (!ok) {
            throw new CorruptionException(file, footerOffset, "footer sections do not tile the file: " + this);
        }
    }
}
