package io.ringbase.api.wire;

import io.netty.handler.codec.http.HttpVersion;

/**
 * What {@link RequestDecoder} passes on instead of a {@link Request} when it cannot produce one; the
 * connection handler answers it in request order like any request.
 */
public sealed interface RequestError {

    /**
     * Whether the request was a HEAD, so that its response must carry no body (RFC 9110 §9.3.2); false
     * when its request line was not read.
     */
    boolean head();

    /**
     * The bytes are not a valid HTTP/1.x request (or pass a size limit of the request line or header);
     * the decoder reads nothing more from the connection, which must be answered with 400 and closed.
     *
     * @param reason what was wrong, for the log and the response body
     */
    record Malformed(String reason, boolean head) implements RequestError {}

    /**
     * The body is larger than the decoder accepts.
     *
     * @param keepAlive whether the connection can go on: the body was announced by Content-Length and
     *                  the decoder skips it; a chunked body cannot be skipped safely, so then not
     */
    record TooLarge(HttpVersion version, boolean keepAlive, boolean head) implements RequestError {}

    /**
     * A request began but did not arrive in full within the request timeout (a client that sends part
     * of a request and stops): answered with 408, then the connection is closed. The decoder reads
     * nothing more from the connection.
     */
    record Timeout(long timeoutMs, boolean head) implements RequestError {}

    /** An {@code Expect} header other than {@code 100-continue}: answered with 417, the connection goes on. */
    record UnsupportedExpectation(HttpVersion version, boolean keepAlive, boolean head) implements RequestError {}
}
