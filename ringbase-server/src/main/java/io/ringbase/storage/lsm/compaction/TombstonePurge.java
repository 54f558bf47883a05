package io.ringbase.storage.lsm.compaction;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;

/**
 * Which entries a compaction may drop for good (the tombstone purge rule): a tombstone, or a value
 * expired by the start of the compaction, that has been dead for longer than the grace period and whose
 * key no source outside the merge may hold, since it would otherwise shadow an older version there.
 * A tombstone is dead from its version's physical time, an expired value from its expiry.
 */
public final class TombstonePurge {

    /** Whether some source outside a merge (a table not merged, a memtable) may hold a key. */
    @FunctionalInterface
    public interface OtherSources {
        /**
         * Whether a source outside the merge may hold {@code key}.
         *
         * @param key the key, a copy the callee may keep
         * @return {@code true} unless no source outside the merge holds it (a Bloom filter's "maybe" counts)
         */
        boolean mayHold(byte[] key);
    }

    private TombstonePurge() {}

    /**
     * The rule for a compaction starting now.
     *
     * @param nowMs   the wall clock at the compaction's start, Unix epoch ms
     * @param graceMs how long an entry must have been dead before it is dropped, ms
     * @param others  asked, for each entry that is otherwise droppable, whether another source may hold
     *                its key: read at each check, so a memtable flushed while the compaction runs is still
     *                seen, as a memtable or as its new table
     */
    public static Compactor.Droppable rule(long nowMs, long graceMs, OtherSources others) {
        long horizon = nowMs - graceMs;
        return (segment, offset) -> {
            long deadAt;
            long expiresAt = EntryFormat.expiresAtMs(segment, offset);
            if (EntryFormat.isTombstone(segment, offset)) {
                deadAt = HybridLogicalClock.physicalMs(EntryFormat.version(segment, offset));
            } else if (expiresAt != Entry.NO_EXPIRY && expiresAt <= nowMs) {
                deadAt = expiresAt;
            } else {
                return false;
            }
            if (deadAt > horizon) {
                return false;
            }
            byte[] key =
                    EntryFormat.copyOf(segment, EntryFormat.keyOffset(offset), EntryFormat.keyLength(segment, offset));
            return !others.mayHold(key);
        };
    }
}
