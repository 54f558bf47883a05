package io.ringbase.cluster.streaming;

/**
 * A snapshot of a {@link StreamSession}'s progress.
 *
 * @param entries        entries received, including those earlier runs of the plan made durable
 * @param bytes          their encoded bytes
 * @param resumedEntries entries earlier runs made durable, where this run resumed; 0 if it started over
 * @param pages          pages received by this run
 * @param elapsedMs      time this run has taken so far, ms
 * @param done           whether every entry of the plan is received and durable
 */
public record StreamProgress(long entries, long bytes, long resumedEntries, long pages, long elapsedMs, boolean done) {}
