package io.ringbase.cluster.elastic;

/**
 * Progress of the membership change this node drives, for status, metrics and the CLI. Immutable.
 *
 * @param kind         {@code "none"}, {@code "join"} or {@code "decommission"}
 * @param phase        {@code "idle"}, {@code "waiting"} (for every node to reach the epoch), {@code "streaming"},
 *                     {@code "finishing"}, {@code "done"} or {@code "failed"}
 * @param epoch        the epoch the change started at
 * @param streamsDone  streams finished (one per source for a join, per target for a decommission)
 * @param streamsTotal streams of the change
 * @param entries      entries streamed so far
 * @param bytes        bytes of entries streamed so far (encoded size)
 * @param elapsedMs    time spent streaming so far, ms
 * @param error        the last failure, or empty
 */
public record MoveStatus(
        String kind,
        String phase,
        long epoch,
        int streamsDone,
        int streamsTotal,
        long entries,
        long bytes,
        long elapsedMs,
        String error) {

    /** No change driven by this node. */
    public static final MoveStatus NONE = new MoveStatus("none", "idle", 0, 0, 0, 0, 0, 0, "");

    /** Streaming rate so far, MB/s (10^6 bytes); 0 before any time has passed. */
    public double megabytesPerSecond() {
        return elapsedMs == 0 ? 0 : bytes / 1e3 / elapsedMs;
    }
}
