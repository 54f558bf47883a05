package io.ringbase.storage.lsm.sstable;

/**
 * What {@link SstableWriter#finish()} wrote.
 *
 * @param entryCount     number of entries (values and tombstones)
 * @param fileBytes      size of the finished file in bytes
 * @param minVersion     smallest entry version, 0 for an empty table
 * @param maxVersion     largest entry version, 0 for an empty table
 * @param tombstoneCount number of entries that are tombstones
 */
public record SstableSummary(long entryCount, long fileBytes, long minVersion, long maxVersion, long tombstoneCount) {}
