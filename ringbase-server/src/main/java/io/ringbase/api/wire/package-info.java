/**
 * HTTP/1.x on the wire, for the server: {@link io.ringbase.api.wire.RequestDecoder} turns a connection's
 * bytes into {@link io.ringbase.api.wire.Request}s (or a {@link io.ringbase.api.wire.RequestError}),
 * {@link io.ringbase.api.wire.RawResponses} writes the point-request path's responses byte for byte, and
 * {@link io.ringbase.api.wire.ResponseEncoder} encodes response objects and lets raw ones through. The
 * decoder is the state machine; {@code RequestLine}, {@code HeaderFields}, {@code ChunkedBody} and
 * {@code WireBytes} parse the request line, the header section and its framing, chunked bodies, and
 * bytes.
 *
 * <p>It owns the protocol's framing rules (request line, header fields, Content-Length and chunked
 * bodies, Expect, keep-alive) and their limits; what a request means is the business of
 * {@code io.ringbase.api}. Per-connection state lives on the connection's event loop only.
 */
package io.ringbase.api.wire;
