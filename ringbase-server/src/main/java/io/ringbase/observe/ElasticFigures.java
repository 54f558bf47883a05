package io.ringbase.observe;

/**
 * A node's elastic membership for status and metrics: where it stands in the cluster metadata log and the
 * membership change it drives (its join, replacement or decommission, or a rebuild after a removal).
 *
 * @param epoch          the newest metadata epoch the node knows
 * @param nodeId         the node's id in the metadata (its node index + 1)
 * @param state          its member state: NORMAL, JOINING, LEAVING, REPLACING or LEFT
 * @param changeKind     {@code none}, {@code join}, {@code replace}, {@code decommission} or {@code rebuild}
 * @param changePhase    {@code idle}, {@code waiting}, {@code streaming}, {@code finishing}, {@code done} or
 *                       {@code failed}
 * @param streamsDone    streams of the change finished
 * @param streamsTotal   streams of the change
 * @param streamedEntries entries streamed by the change so far
 * @param streamedBytes  bytes of entries streamed by the change so far
 * @param elapsedMs      time the change has streamed so far, ms
 */
public record ElasticFigures(
        long epoch,
        int nodeId,
        String state,
        String changeKind,
        String changePhase,
        int streamsDone,
        int streamsTotal,
        long streamedEntries,
        long streamedBytes,
        long elapsedMs) {

    /** Streaming rate of the change so far, MB/s (10^6 bytes); 0 before any time has passed. */
    public double megabytesPerSecond() {
        return elapsedMs == 0 ? 0 : streamedBytes / 1e3 / elapsedMs;
    }
}
