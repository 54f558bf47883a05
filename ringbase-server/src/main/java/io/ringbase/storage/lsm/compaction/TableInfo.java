package io.ringbase.storage.lsm.compaction;

import io.ringbase.storage.lsm.sstable.SstableReader;

/**
 * What the compaction picker knows of one live SSTable: its file number and size, and from its footer
 * the counts, newest version and latest expiry the tombstone trigger ({@link TombstoneTrigger}) and the
 * age order of {@link UniversalPicker} need.
 *
 * @param number         the table's file number
 * @param sizeBytes      the table's file size in bytes
 * @param entryCount     entries in the table (values and tombstones)
 * @param tombstoneCount entries that are tombstones, at most {@code entryCount}
 * @param expiringCount  values (not tombstones) that carry an expiry, at most
 *                       {@code entryCount - tombstoneCount}; 0 for a table whose format does not record it
 *                       (SSTable format versions 1 to 4)
 * @param maxExpiresAt   the latest expiry among those values, Unix epoch ms; 0 iff {@code expiringCount} is 0
 * @param maxVersion     the newest entry version in the table (a hybrid logical clock version), 0 if unknown
 * @param createdAtMs    when the table's file was written (its modification time), Unix epoch ms;
 *                       {@link Long#MAX_VALUE} if unknown, which keeps the tombstone trigger off it
 */
public record TableInfo(
        long number,
        long sizeBytes,
        long entryCount,
        long tombstoneCount,
        long expiringCount,
        long maxExpiresAt,
        long maxVersion,
        long createdAtMs) {

    /**
     * @throws IllegalArgumentException if the counts are negative or exceed {@code entryCount} together, or
     *                                  {@code maxExpiresAt} is negative or disagrees with {@code expiringCount}
     */
    public TableInfo {
        if (tombstoneCount < 0 || entryCount < tombstoneCount) {
            throw new IllegalArgumentException(
                    "need 0 <= tombstoneCount <= entryCount, got " + tombstoneCount + ", " + entryCount);
        }
        if (expiringCount < 0 || expiringCount > entryCount - tombstoneCount) {
            throw new IllegalArgumentException("need 0 <= expiringCount <= entryCount - tombstoneCount, got "
                    + expiringCount + ", " + entryCount + " - " + tombstoneCount);
        }
        if (maxExpiresAt < 0 || (expiringCount == 0) != (maxExpiresAt == 0)) {
            throw new IllegalArgumentException(
                    "need maxExpiresAt > 0 iff expiringCount > 0, got " + maxExpiresAt + ", " + expiringCount);
        }
    }

    /** A table with no values that expire, or whose format does not say (SSTable format versions 1 to 4). */
    public TableInfo(
            long number, long sizeBytes, long entryCount, long tombstoneCount, long maxVersion, long createdAtMs) {
        this(number, sizeBytes, entryCount, tombstoneCount, 0, 0, maxVersion, createdAtMs);
    }

    /**
     * The table of file {@code number} as its reader's footer describes it.
     *
     * @param createdAtMs when its file was written, Unix epoch ms, or {@link Long#MAX_VALUE} if not looked up
     */
    public static TableInfo of(long number, SstableReader reader, long createdAtMs) {
        return new TableInfo(
                number,
                reader.fileBytes(),
                reader.entryCount(),
                reader.tombstoneCount(),
                reader.expiringCount(),
                reader.maxExpiresAt(),
                reader.maxVersion(),
                createdAtMs);
    }

    /** A table known only by number and size: no tombstones, no version, age unknown. */
    public TableInfo(long number, long sizeBytes) {
        this(number, sizeBytes, 0, 0, 0, Long.MAX_VALUE);
    }
}
