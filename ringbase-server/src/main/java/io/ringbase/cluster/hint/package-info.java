/**
 * Hinted handoff (Dynamo, DeCandia et al. SOSP 2007, section 4.6; Cassandra's hints): a write that a
 * replica did not acknowledge is kept by the coordinator as a durable <em>hint</em> in
 * {@link io.ringbase.cluster.hint.HintStore} (an {@link io.ringbase.storage.lsm.LsmEngine} under
 * {@code <data-dir>/hints}, format in {@code docs/format.md}, "Hints") and delivered by
 * {@link io.ringbase.cluster.hint.HintedHandoff} once the replica answers a probe again.
 *
 * <p>Hints never count toward a request's {@code ack}: they only shorten the time a replica that was
 * away stays behind. They are bounded in age and in total bytes ({@link io.ringbase.cluster.hint.HintOptions});
 * past the bounds they are dropped with a log line and a counter and anti-entropy repairs the replica.
 *
 * <p>Concurrency: {@link io.ringbase.cluster.hint.HintedHandoff#hint} may be called from any thread,
 * event loops included (it never blocks); one writer thread adds hints to the store, one scheduler
 * thread probes targets, and one virtual thread per target delivers. {@code HintStore} is thread-safe.
 */
package io.ringbase.cluster.hint;
