package io.ringbase.storage.lsm.sstable;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.lang.foreign.MemorySegment;

/**
 * What a block table's footer records of its entries ({@code docs/format.md}, sections 4.8 and 4.11),
 * gathered as {@link SstableWriter} adds them: how many entries, tombstones and values with an expiry,
 * the latest such expiry and the range of versions. Not thread-safe: the writer's thread only.
 */
final class EntryStats {

    private long entryCount;
    private long tombstoneCount;
    /** Values (not tombstones) that carry an expiry: a tombstone's expiry says nothing of what it frees. */
    private long expiringCount;
    /** The latest expiry among them, Unix epoch ms; 0 while there is none. */
    private long maxExpiresAt;

    private long minVersion = Long.MAX_VALUE;
    private long maxVersion = Long.MIN_VALUE;

    /** Counts the entry encoded ({@link EntryFormat}) at {@code at} of {@code segment}. */
    void add(MemorySegment segment, long at) {
        entryCount++;
        if (EntryFormat.isTombstone(segment, at)) {
            tombstoneCount++;
        } else {
            long expiresAt = EntryFormat.expiresAtMs(segment, at);
            if (expiresAt != Entry.NO_EXPIRY) {
                expiringCount++;
                maxExpiresAt = Math.max(maxExpiresAt, expiresAt);
            }
        }
        long version = EntryFormat.version(segment, at);
        minVersion = Math.min(minVersion, version);
        maxVersion = Math.max(maxVersion, version);
    }

    /**
     * The footer of a block table of {@code formatVersion} (2 to 5) holding the entries counted: the
     * version range 0 to 0 if there were none, and the expiry statistics only from version 5, whose
     * footer has room for them. Lengths in bytes.
     */
    Footer footer(
            int formatVersion,
            long dataLength,
            long indexLength,
            long bloomLength,
            long blockCount,
            int indexCrc,
            int bloomCrc) {
        boolean empty = entryCount == 0;
        boolean expiry = formatVersion >= 5;
        return Footer.blocks(
                formatVersion,
                dataLength,
                indexLength,
                bloomLength,
                entryCount,
                tombstoneCount,
                empty ? 0 : minVersion,
                empty ? 0 : maxVersion,
                blockCount,
                expiry ? expiringCount : 0,
                expiry ? maxExpiresAt : 0,
                indexCrc,
                bloomCrc);
    }
}
