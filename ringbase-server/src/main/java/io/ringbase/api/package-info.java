/**
 * The public HTTP API (Netty 4.2), described in {@code docs/http-api.md}: request parsing and validation
 * ({@link io.ringbase.api.QueryString}, {@link io.ringbase.api.Ttl}), the bounded request executor,
 * streaming range responses, and the one place that maps outcomes and errors to status codes
 * ({@code Responses}).
 *
 * <p>Concurrency: event-loop threads accept, decode and write; each connection serves one request at a
 * time on a bounded worker pool ({@link io.ringbase.api.HttpServerConfig#workerThreads()} threads, a queue
 * of {@link io.ringbase.api.HttpServerConfig#queueCapacity()}); a full queue is answered with 503 on the
 * event loop. Per-connection state lives on its event loop only. Range bodies are read from the
 * engine's iterator by short worker tasks, about 64 KiB at a time, and written one entry per chunk
 * by the event loop only while the channel is writable.
 *
 * <p>Entry point: {@link io.ringbase.api.RingbaseHttpServer}.
 */
package io.ringbase.api;
