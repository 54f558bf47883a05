package io.ringbase.api;

import io.ringbase.kv.EntryBatchSource;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * What a successful API call produced. Outcomes of the public API carry no status codes: {@link Responses}
 * alone turns them (and failures) into HTTP responses. The one exception is {@link Reply}, made by a route
 * whose protocol chooses its own codes (the node-to-node API).
 */
public sealed interface Outcome {

    /**
     * A live value was found; {@code body} holds it, and the response takes ownership of it. {@code version}
     * is its version, answered as the {@code ETag}; {@code contentType} the type stored with it, or
     * {@code null} for {@code application/octet-stream}.
     */
    record Value(
            io.netty.buffer.ByteBuf body,
            long version,
            @org.jspecify.annotations.Nullable String contentType) implements Outcome {

        /** An untyped value. */
        Value(io.netty.buffer.ByteBuf body, long version) {
            this(body, version, null);
        }
    }

    /** No live value for the key (never written, deleted or expired). */
    record Missing() implements Outcome {}

    /** A value was written with {@code version}. */
    record Written(long version) implements Outcome {}

    /** A tombstone was written with {@code version} (whether or not the key existed). */
    record Deleted(long version) implements Outcome {}

    /**
     * A conditional write's condition failed: nothing was written. {@code version} is the version of the
     * key's live value, or {@link io.ringbase.kv.CasResult#NO_VALUE} if it had none.
     */
    record PreconditionFailed(long version) implements Outcome {}

    /**
     * A key range to stream, live entries only, framed as {@code format} says; the receiver owns
     * {@code source} and must close it. {@code paged}: the request asked for a {@code limit}, so the
     * response announces and sends the {@code Ringbase-Next-Start} trailer when the page is full.
     */
    record Range(EntryBatchSource source, RangeFormat format, boolean paged) implements Outcome {}

    /**
     * An outcome that arrives later (a coordinated request waiting for its replicas); it completes with
     * any non-streaming outcome or fails with the exceptions {@link Responses#error} maps.
     */
    record Pending(CompletionStage<Outcome> result) implements Outcome {}

    /**
     * A response a route's own protocol made: status, content type, body and extra header fields. The
     * node-to-node API answers with these; its codes are chosen by that protocol, not by {@link Responses}.
     */
    record Reply(int status, String contentType, byte[] body, Map<String, String> headers) implements Outcome {}

    /** A binary or JSON answer for admin and report paths ({@code 200}). */
    record Body(byte[] bytes, String contentType) implements Outcome {}

    /**
     * Not served: on an event loop, a write the engine could not take without waiting. The connection
     * handler runs the request again on a worker; nothing was answered.
     */
    record Blocked() implements Outcome {}

    /** The one {@link Blocked}. */
    Outcome BLOCKED = new Blocked();

    /**
     * The answer of a health or readiness check: {@code ok} (200) or not (503), with a one-line
     * {@code text} saying why.
     */
    record Probe(boolean ok, String text) implements Outcome {}

    /** A background job was started ({@code 202}). */
    record Started() implements Outcome {}
}
