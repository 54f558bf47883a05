/**
 * The binary node-to-node protocol (version 1 of v2, docs/internal-protocol-v2.md): persistent TCP
 * connections per peer and event loop, CRC32C-checked length-prefixed frames with request ids, many calls
 * in flight per connection, one flush per event-loop turn, and authentication once per connection by a
 * challenge-response over the cluster secret. It carries the hot replica calls (read, version query,
 * write, ping); everything else stays on the HTTP internal API ({@code io.ringbase.cluster.rpc}).
 *
 * <p>{@link io.ringbase.cluster.wire.WireFormat} holds the constants and the frame and entry codecs,
 * {@link io.ringbase.cluster.wire.FrameDecoder} splits a stream into checked frames,
 * {@link io.ringbase.cluster.wire.Handshake} builds and checks the handshake messages,
 * {@link io.ringbase.cluster.wire.WireClient} and {@link io.ringbase.cluster.wire.ClientConnection} are
 * the coordinator's side, {@link io.ringbase.cluster.wire.WireServer} and
 * {@link io.ringbase.cluster.wire.ServerConnection} the replica's, which serves through
 * {@link io.ringbase.cluster.rpc.ReplicaServer} exactly as a batched HTTP call is served.
 *
 * <p>Concurrency: every connection is used by its event loop's thread only; calls made on other threads
 * are handed to a loop. Nothing here blocks an event loop: a call that would wait runs on the HTTP
 * server's workers.
 */
package io.ringbase.cluster.wire;
