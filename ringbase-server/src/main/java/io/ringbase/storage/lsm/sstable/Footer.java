package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;

import io.ringbase.storage.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The fixed-size footer at the end of every SSTable: 96 bytes in format version 1
 * ({@code docs/format.md}, section 4.5), 104 in versions 2 to 4 (sections 4.8-4.10), 120 in version 5
 * (section 4.11). All end with
 * {@code formatVersion footerCrc magic}, so the version is known before the rest is parsed. Offsets
 * and lengths are in bytes from the start of the file.
 *
 * @param formatVersion  1 to 5
 * @param dataLength     length of the data section (records or blocks), which starts at byte 0
 * @param indexOffset    offset of the index section (equals {@code dataLength})
 * @param indexLength    length of the index section ({@code 8 * entryCount} in version 1)
 * @param bloomOffset    offset of the Bloom section ({@code indexOffset + indexLength})
 * @param bloomLength    length of the Bloom section
 * @param entryCount     number of entries
 * @param tombstoneCount number of entries that are tombstones
 * @param minVersion     smallest entry version, 0 for an empty table
 * @param maxVersion     largest entry version, 0 for an empty table
 * @param blockCount     number of data blocks (versions 2 to 5; 0 in version 1, which has none)
 * @param expiringCount  number of values (not tombstones) that carry an expiry (version 5; 0 before)
 * @param maxExpiresAt   the largest expiry among them, Unix epoch ms; 0 iff {@code expiringCount} is 0
 *                       (version 5; 0 before)
 * @param indexCrc       CRC32C of the index section
 * @param bloomCrc       CRC32C of the Bloom section
 */
record Footer(
        int formatVersion,
        long dataLength,
        long indexOffset,
        long indexLength,
        long bloomOffset,
        long bloomLength,
        long entryCount,
        long tombstoneCount,
        long minVersion,
        long maxVersion,
        long blockCount,
        long expiringCount,
        long maxExpiresAt,
        int indexCrc,
        int bloomCrc) {

    /** Version 1's footer: nine u64 fields, indexCrc, bloomCrc, formatVersion, footerCrc, magic. */
    static final int V1_SIZE = 9 * 8 + 4 + 4 + 4 + 4 + 8;
    /** Version 2's (and 3's and 4's) footer: ten u64 fields (blockCount added), then the same five. */
    static final int V2_SIZE = 10 * 8 + 4 + 4 + 4 + 4 + 8;
    /** Version 5's footer: twelve u64 fields (expiringCount and maxExpiresAt added), then the same five. */
    static final int V5_SIZE = 12 * 8 + 4 + 4 + 4 + 4 + 8;
    /** Bytes every version ends with: formatVersion, footerCrc, magic. */
    static final int TAIL_SIZE = 16;
    /** The ASCII bytes "RBSSTABL" read as a little-endian u64. Persisted: do not change. */
    static final long MAGIC = 0x4C42415453534252L;

    /**
     * The newest format version, which the engine writes: compact entries in blocks (section 4.9), a
     * cache-blocked Bloom filter (section 4.10) and expiry statistics in the footer (section 4.11).
     */
    static final int LATEST_VERSION = 5;

    /**
     * A footer of a block table: format version 2 to 5; {@code expiringCount} and {@code maxExpiresAt} must
     * be 0 below version 5, which cannot store them.
     */
    static Footer blocks(
            int formatVersion,
            long dataLength,
            long indexLength,
            long bloomLength,
            long entryCount,
            long tombstoneCount,
            long minVersion,
            long maxVersion,
            long blockCount,
            long expiringCount,
            long maxExpiresAt,
            int indexCrc,
            int bloomCrc) {
        if (formatVersion < 5 && (expiringCount != 0 || maxExpiresAt != 0)) {
            throw new IllegalArgumentException("format version " + formatVersion + " has no expiry statistics");
        }
        return new Footer(
                formatVersion,
                dataLength,
                dataLength,
                indexLength,
                dataLength + indexLength,
                bloomLength,
                entryCount,
                tombstoneCount,
                minVersion,
                maxVersion,
                blockCount,
                expiringCount,
                maxExpiresAt,
                indexCrc,
                bloomCrc);
    }

    /** Size in bytes of this footer's encoding. */
    int size() {
        return sizeOf(formatVersion);
    }

    private static int sizeOf(int version) {
        return switch (version) {
            case 1 -> V1_SIZE;
            case 5 -> V5_SIZE;
            default -> V2_SIZE;
        };
    }

    /** How many u64 fields open the footer of {@code version}: 9, 10 (blockCount) or 12 (expiry statistics). */
    private static int longFields(int version) {
        return (sizeOf(version) - 24) / 8;
    }

    /** Encodes this footer (with format version, footer checksum and magic) into {@code dst} at 0. */
    void writeTo(MemorySegment dst) {
        long[] fields = {
            dataLength,
            indexOffset,
            indexLength,
            bloomOffset,
            bloomLength,
            entryCount,
            tombstoneCount,
            minVersion,
            maxVersion,
            blockCount,
            expiringCount,
            maxExpiresAt
        };
        int n = longFields(formatVersion); // the leading fields this version stores
        for (int i = 0; i < n; i++) {
            dst.set(I64, 8L * i, fields[i]);
        }
        int at = 8 * n;
        dst.set(I32, at, indexCrc);
        dst.set(I32, at + 4, bloomCrc);
        dst.set(I32, at + 8, formatVersion);
        dst.set(I32, at + 12, Crc32c.of(dst.asSlice(0, at + 12)));
        dst.set(I64, at + 16, MAGIC);
    }

    /**
     * Reads and checks the footer of the mapped {@code file}: length, magic, format version, footer
     * checksum, then that the sections tile the file exactly.
     *
     * @throws CorruptionException on the first check that fails
     */
    static Footer read(Path file, MemorySegment mapped) throws CorruptionException {
        long fileSize = mapped.byteSize();
        if (fileSize < TAIL_SIZE) {
            throw new CorruptionException(file, 0, "file of " + fileSize + " bytes is shorter than an SSTable footer");
        }
        long magic = mapped.get(I64, fileSize - 8);
        if (magic != MAGIC) {
            throw new CorruptionException(
                    file, fileSize - 8, "bad magic 0x" + Long.toHexString(magic) + ", not an SSTable or truncated");
        }
        int version = mapped.get(I32, fileSize - TAIL_SIZE);
        if (version < 1 || version > LATEST_VERSION) {
            throw new CorruptionException(
                    file,
                    fileSize - TAIL_SIZE,
                    "unsupported SSTable format version " + Integer.toUnsignedString(version));
        }
        int size = sizeOf(version);
        if (fileSize < size) {
            throw new CorruptionException(
                    file,
                    0,
                    "file of " + fileSize + " bytes is shorter than the " + size + "-byte footer of format version "
                            + version);
        }
        long at = fileSize - size;
        MemorySegment f = mapped.asSlice(at, size);
        int crcAt = size - 12;
        if (f.get(I32, crcAt) != Crc32c.of(f.asSlice(0, crcAt))) {
            throw new CorruptionException(file, at, "footer checksum mismatch");
        }
        int crcs = 8 * longFields(version);
        Footer footer = new Footer(
                version,
                f.get(I64, 0),
                f.get(I64, 8),
                f.get(I64, 16),
                f.get(I64, 24),
                f.get(I64, 32),
                f.get(I64, 40),
                f.get(I64, 48),
                f.get(I64, 56),
                f.get(I64, 64),
                version == 1 ? 0 : f.get(I64, 72),
                version < 5 ? 0 : f.get(I64, 80),
                version < 5 ? 0 : f.get(I64, 88),
                f.get(I32, crcs),
                f.get(I32, crcs + 4));
        footer.checkLayout(file, at);
        return footer;
    }

    private void checkLayout(Path file, long footerOffset) throws CorruptionException {
        boolean ok = dataLength >= 0
                && dataLength <= footerOffset
                && entryCount >= 0
                && tombstoneCount >= 0
                && tombstoneCount <= entryCount
                && expiringCount >= 0
                && expiringCount <= entryCount - tombstoneCount
                && maxExpiresAt >= 0
                && (expiringCount == 0) == (maxExpiresAt == 0)
                && indexOffset == dataLength
                && indexLength >= 0
                && indexLength <= footerOffset
                && bloomOffset == indexOffset + indexLength
                && bloomLength >= 0
                && bloomLength <= footerOffset
                && bloomOffset + bloomLength == footerOffset
                && minVersion <= maxVersion;
        if (formatVersion == 1) {
            ok &= entryCount <= dataLength / V1Table.MIN_RECORD_SIZE && indexLength == 8 * entryCount;
        } else {
            ok &= blockCount >= 0
                    && blockCount <= indexLength / 8
                    && (blockCount == 0) == (entryCount == 0)
                    && blockCount <= dataLength / BlockTable.TRAILER_SIZE;
        }
        if (!ok) {
            throw new CorruptionException(file, footerOffset, "footer sections do not tile the file: " + this);
        }
    }
}
