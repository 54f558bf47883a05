/**
 * Streaming: moving a key range share from the node that held it to the node that newly owns it when
 * membership changes (bootstrap, decommission, replacement), as Cassandra's streaming does for a
 * bootstrap (Cassandra's {@code StreamPlan}/{@code StreamSession}; DeCandia et al., "Dynamo", SOSP 2007,
 * section 4.9).
 *
 * <p>{@link io.ringbase.cluster.streaming.StreamPlan} says which keys move, from which node to which, at
 * which epoch; {@link io.ringbase.cluster.streaming.StreamPlanCodec} is its checksummed wire form.
 * {@link io.ringbase.cluster.streaming.StreamSource} answers a plan's pages from the local engine (the
 * sender's side); {@link io.ringbase.cluster.streaming.StreamPeer} is what the receiver needs of the
 * sender; {@link io.ringbase.cluster.streaming.StreamSession} pulls one plan's pages, applies them,
 * rate-limits with a {@link io.ringbase.throttle.ByteRateLimiter} and keeps a durable
 * {@link io.ringbase.cluster.streaming.StreamCursor} so that a crash of either side resumes where the
 * last durable page ended.
 *
 * <p>Concurrency: plans, the codec and the source are immutable or stateless and thread-safe; a session
 * runs on the one thread that calls {@code run}, and its {@code progress()} may be read from any thread.
 */
package io.ringbase.cluster.streaming;
