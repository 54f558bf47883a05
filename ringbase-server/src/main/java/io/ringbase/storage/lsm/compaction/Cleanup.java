package io.ringbase.storage.lsm.compaction;

import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.KeyFilter;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cleanup: a major compaction that also leaves out every entry of the keys a {@link KeyFilter} rejects
 * (Cassandra's {@code nodetool cleanup}, which rewrites each SSTable without the ranges the node no longer
 * replicates). Leaving them out of the one table that replaces all live tables removes them for good,
 * with no tombstone written: no older version stays behind in another table to surface.
 */
public final class Cleanup {

    /**
     * What a cleanup did.
     *
     * @param droppedKeys the keys whose entries were left out (one per key, however many versions it had)
     * @param bytesBefore the file bytes of the tables merged
     * @param bytesAfter  the file bytes of the table written (0 if nothing was kept)
     */
    public record Result(long droppedKeys, long bytesBefore, long bytesAfter) {
        /** A cleanup of no tables. */
        public static final Result NOTHING = new Result(0, 0, 0);
    }

    private Cleanup() {}

    /**
     * The rule of a cleanup's merge: the newest entry of a key {@code keep} rejects is left out (and with it,
     * as in any merge, the older versions it shadows), counted in {@code dropped}; other entries are left out
     * if {@code otherwise} says so (the tombstone purge rule).
     */
    public static Compactor.Droppable droppingRejected(
            KeyFilter keep, Compactor.Droppable otherwise, LongAdder dropped) {
        return (MemorySegment segment, long offset) -> {
            byte[] key =
                    EntryFormat.copyOf(segment, EntryFormat.keyOffset(offset), EntryFormat.keyLength(segment, offset));
            if (!keep.keep(key)) {
                dropped.increment();
                return true;
            }
            return otherwise.test(segment, offset);
        };
    }
}
