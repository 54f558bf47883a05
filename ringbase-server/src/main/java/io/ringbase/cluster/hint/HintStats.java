package io.ringbase.cluster.hint;

/**
 * A snapshot of hinted handoff for the admin API and metrics. Counters run since the node started.
 *
 * @param pendingHints      hints stored and not yet delivered, all targets
 * @param pendingBytes      their size, bytes ({@link HintStore#totalBytes()})
 * @param targetsPending    nodes with pending hints
 * @param queued            hints accepted but not yet written to the store
 * @param stored            hints written to the store (a replacement of an older hint counts)
 * @param delivered         hints acknowledged by their target and removed
 * @param droppedAge        hints dropped because they were older than the age window
 * @param droppedBytes      hints dropped because the store was at its byte bound
 * @param droppedOversize   hints dropped because the entry's key or value left no room for the hint fields
 * @param droppedQueueFull  hints dropped because the queue to the store was full (or the service closed)
 * @param droppedWriteError hints dropped because the store's write failed
 */
public record HintStats(
        long pendingHints,
        long pendingBytes,
        int targetsPending,
        int queued,
        long stored,
        long delivered,
        long droppedAge,
        long droppedBytes,
        long droppedOversize,
        long droppedQueueFull,
        long droppedWriteError) {

    /** All hints dropped for any reason. */
    public long dropped() {
        return droppedAge + droppedBytes + droppedOversize + droppedQueueFull + droppedWriteError;
    }
}
