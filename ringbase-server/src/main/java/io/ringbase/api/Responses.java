package io.ringbase.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.DiskFault;
import io.ringbase.storage.InsufficientSpaceException;
import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.StoreBusyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that chooses HTTP status codes: it maps {@link Outcome outcomes} and failures (typed
 * exceptions, overload, oversized or malformed requests) to responses. Everything else in this package
 * returns outcomes or throws.
 *
 * <table>
 * <caption>Mapping</caption>
 * <tr><td>{@link Outcome.Value}, {@link Outcome.Range}</td><td>200</td></tr>
 * <tr><td>{@link Outcome.Written}</td><td>201</td></tr>
 * <tr><td>{@link Outcome.Deleted}</td><td>202</td></tr>
 * <tr><td>{@link Outcome.Missing}</td><td>404</td></tr>
 * <tr><td>{@link Outcome.PreconditionFailed}</td><td>412, with the current {@code ETag} if the key has a value</td></tr>
 * <tr><td>{@link BadRequestException} (an unknown path too), malformed HTTP</td><td>400</td></tr>
 * <tr><td>an {@code Expect} other than {@code 100-continue}</td><td>417</td></tr>
 * <tr><td>a request not in full within the request timeout</td><td>408 (then close)</td></tr>
 * <tr><td>{@link MethodNotAllowedException}</td><td>405 with {@code Allow}</td></tr>
 * <tr><td>body over the limit, {@link PayloadTooLargeException}</td><td>413</td></tr>
 * <tr><td>{@link StoreBusyException}, worker queue full</td><td>503 with {@code Retry-After: 1}</td></tr>
 * <tr><td>{@link StorageFaultException}: disk full (ENOSPC)</td><td>507, the cause as the body</td></tr>
 * <tr><td>{@link InsufficientSpaceException} (a major compaction without room)</td><td>507, the reason as the body</td></tr>
 * <tr><td>{@link StorageFaultException}: EIO, EMFILE, other disk errors</td><td>503 with {@code Retry-After: 1}, the cause as the body</td></tr>
 * <tr><td>{@link QuorumException} (too few replicas up, or answers)</td><td>504</td></tr>
 * <tr><td>{@link UnauthorizedException} (no client token, or an unknown one)</td><td>401 with {@code WWW-Authenticate: Bearer}</td></tr>
 * <tr><td>{@link ForbiddenException} (internal or admin request without a valid HMAC; a client token
 *     without the permission or the key prefix)</td><td>403</td></tr>
 * <tr><td>{@link Outcome.Body}</td><td>200 (admin and report paths)</td></tr>
 * <tr><td>{@link Outcome.Reply}</td><td>the status its protocol chose (the node-to-node API)</td></tr>
 * <tr><td>{@link Outcome.Started}</td><td>202</td></tr>
 * <tr><td>{@link Outcome.Probe}</td><td>200 if ok, else 503 (health and readiness checks)</td></tr>
 * <tr><td>{@link NotFoundException} (a known path whose function is off on this node)</td><td>404</td></tr>
 * <tr><td>other {@link IOException} or unexpected exception</td><td>500 (logged)</td></tr>
 * </table>
 *
 * <p>Error bodies are a short {@code text/plain} reason ending in a newline. Connection headers are the
 * caller's business ({@link io.netty.handler.codec.http.HttpUtil#setKeepAlive}).
 */
final class Responses {

    private static final Logger log = LoggerFactory.getLogger(Responses.class);

    /** Seconds a client should wait before retrying after a 503. */
    static final int RETRY_AFTER_SECONDS = 1;

    private Responses() {}

    /** The response for a non-streaming outcome. */
    static FullHttpResponse of(Outcome outcome, HttpVersion version) {
        return switch (outcome) {
            case Outcome.Value v -> {
                FullHttpResponse r = full(version, HttpResponseStatus.OK, v.body());
                String type = v.contentType();
                r.headers()
                        .set(
                                HttpHeaderNames.CONTENT_TYPE,
                                type == null ? HttpHeaderValues.APPLICATION_OCTET_STREAM : type);
                r.headers().set(HttpHeaderNames.ETAG, ETag.of(v.version()));
                yield r;
            }
            case Outcome.Missing m -> text(version, HttpResponseStatus.NOT_FOUND, "no such key");
            case Outcome.Written w ->
                tagged(full(version, HttpResponseStatus.CREATED, Unpooled.EMPTY_BUFFER), w.version());
            case Outcome.Deleted d ->
                tagged(full(version, HttpResponseStatus.ACCEPTED, Unpooled.EMPTY_BUFFER), d.version());
            case Outcome.PreconditionFailed p -> {
                FullHttpResponse r = text(
                        version,
                        HttpResponseStatus.PRECONDITION_FAILED,
                        p.version() == CasResult.NO_VALUE
                                ? "precondition failed: the key has no value"
                                : "precondition failed: the key's version is " + ETag.of(p.version()));
                yield p.version() == CasResult.NO_VALUE ? r : tagged(r, p.version());
            }
            case Outcome.Range r -> throw new IllegalArgumentException("a range is streamed; use rangeHead");
            case Outcome.Pending p ->
                throw new IllegalArgumentException("a pending outcome is answered when it completes");
            case Outcome.Blocked b ->
                throw new IllegalArgumentException("a blocked request is run again, not answered");
            case Outcome.Reply r -> {
                FullHttpResponse out =
                        full(version, HttpResponseStatus.valueOf(r.status()), Unpooled.wrappedBuffer(r.body()));
                out.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
                r.headers().forEach(out.headers()::set);
                yield out;
            }
            case Outcome.Body b -> {
                FullHttpResponse r = full(version, HttpResponseStatus.OK, Unpooled.wrappedBuffer(b.bytes()));
                r.headers().set(HttpHeaderNames.CONTENT_TYPE, b.contentType());
                yield r;
            }
            case Outcome.Started s -> text(version, HttpResponseStatus.ACCEPTED, "started");
            case Outcome.Probe p ->
                text(version, p.ok() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, p.text());
        };
    }

    /**
     * The head of a range response (200, {@code application/octet-stream}); {@code chunked} adds
     * {@code Transfer-Encoding: chunked} (HTTP/1.1), otherwise the body ends when the connection closes;
     * {@code paged} (a {@code limit} was asked) announces the {@code Ringbase-Next-Start} trailer.
     */
    static HttpResponse rangeHead(HttpVersion version, boolean chunked, RangeFormat format, boolean paged) {
        HttpResponse r = new DefaultHttpResponse(version, HttpResponseStatus.OK);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, format.contentType());
        if (chunked) {
            r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            if (paged) {
                r.headers().set(HttpHeaderNames.TRAILER, EntryChunkedInput.NEXT_START);
            }
        }
        return r;
    }

    /** The response for a failed request. */
    static FullHttpResponse error(Throwable failure, HttpVersion version) {
        return switch (failure) {
            case BadRequestException e -> text(version, HttpResponseStatus.BAD_REQUEST, e.getMessage());
            case NotFoundException e -> text(version, HttpResponseStatus.NOT_FOUND, e.getMessage());
            case MethodNotAllowedException e -> {
                FullHttpResponse r = text(version, HttpResponseStatus.METHOD_NOT_ALLOWED, e.getMessage());
                r.headers().set(HttpHeaderNames.ALLOW, e.allow());
                yield r;
            }
            case StoreBusyException e -> retryLater(version, "store busy: " + e.getMessage());
            case QuorumException e -> text(version, HttpResponseStatus.GATEWAY_TIMEOUT, e.getMessage());
            case PayloadTooLargeException e -> payloadTooLarge(version, e.limitBytes());
            case ForbiddenException e -> text(version, HttpResponseStatus.FORBIDDEN, e.getMessage());
            case UnauthorizedException e -> {
                FullHttpResponse r = text(version, HttpResponseStatus.UNAUTHORIZED, e.getMessage());
                r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, e.challenge());
                yield r;
            }
            case InsufficientSpaceException e -> {
                log.warn("compaction refused: {}", e.getMessage());
                yield text(version, HttpResponseStatus.INSUFFICIENT_STORAGE, e.getMessage());
            }
            case StorageFaultException e
            when e.fault() == DiskFault.DISK_FULL -> {
                log.warn("write refused: {}", e.getMessage());
                yield text(version, HttpResponseStatus.INSUFFICIENT_STORAGE, e.getMessage());
            }
            case StorageFaultException e -> {
                log.warn("write refused: {}", e.getMessage());
                yield retryLater(version, e.getMessage());
            }
            case CompletionException e when e.getCause() != null -> error(e.getCause(), version);
            case IOException e -> {
                log.error("I/O error while serving a request", e);
                yield text(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "storage I/O error");
            }
            default -> {
                log.error("unexpected error while serving a request", failure);
                yield text(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error");
            }
        };
    }

    /** All workers are busy and the queue is full (or the server is stopping). */
    static FullHttpResponse overloaded(HttpVersion version) {
        return retryLater(version, "server overloaded");
    }

    /** The request body is larger than the configured limit. */
    static FullHttpResponse payloadTooLarge(HttpVersion version, int maxBodyBytes) {
        return text(
                version,
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "request body exceeds " + maxBodyBytes + " bytes");
    }

    /** The request could not be parsed as HTTP; the connection is closed after this response. */
    static FullHttpResponse malformed(String reason) {
        return text(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST, "malformed HTTP request: " + reason);
    }

    /** A request that did not arrive in full within the request timeout; the connection is closed. */
    static FullHttpResponse requestTimeout(long timeoutMs) {
        return text(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_TIMEOUT,
                "the request did not arrive in full within " + timeoutMs + " ms");
    }

    /** An {@code Expect} header other than {@code 100-continue}. */
    static FullHttpResponse expectationFailed(HttpVersion version) {
        return text(version, HttpResponseStatus.EXPECTATION_FAILED, "only Expect: 100-continue is supported");
    }

    private static FullHttpResponse retryLater(HttpVersion version, @Nullable String reason) {
        FullHttpResponse r = text(version, HttpResponseStatus.SERVICE_UNAVAILABLE, reason);
        r.headers().setInt(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
        return r;
    }

    private static FullHttpResponse tagged(FullHttpResponse r, long version) {
        r.headers().set(HttpHeaderNames.ETAG, ETag.of(version));
        return r;
    }

    /** A text response of {@code reason}, or of the status's reason phrase when it is null (an exception without message). */
    private static FullHttpResponse text(HttpVersion version, HttpResponseStatus status, @Nullable String reason) {
        ByteBuf body =
                Unpooled.copiedBuffer((reason == null ? status.reasonPhrase() : reason) + "\n", StandardCharsets.UTF_8);
        FullHttpResponse r = full(version, status, body);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN + "; charset=utf-8");
        return r;
    }

    private static FullHttpResponse full(HttpVersion version, HttpResponseStatus status, ByteBuf body) {
        // no trailers object: a content-length response has none (Netty's default makes an empty header map)
        FullHttpResponse r = new DefaultFullHttpResponse(
                version,
                status,
                body,
                DefaultHttpHeadersFactory.headersFactory().newHeaders(),
                EmptyHttpHeaders.INSTANCE);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return r;
    }
}
