package io.ringbase.api;

import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.scan.EntryBatchSource;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletionStage;

/**
 * What a successful API call produced. Outcomes carry no status codes: {@link Responses} alone turns
 * them (and failures) into HTTP responses.
 */
sealed interface Outcome {

    /** A live value was found; {@code body} holds it, and the response takes ownership of it. */
    record Value(io.netty.buffer.ByteBuf body) implements Outcome {
    }

    /** No live value for the key (never written, deleted or expired). */
    record Missing() implements Outcome {
    }

    /** A value was written. */
    record Written() implements Outcome {
    }

    /** A tombstone was written (whether or not the key existed). */
    record Deleted() implements Outcome {
    }

    /**
     * A key range to stream, live entries only, framed as {@code format} says; the receiver owns
     * {@code source} and must close it.
     */
    record Range(EntryBatchSource source, RangeFormat format) implements Outcome {
    }

    /**
     * An outcome that arrives later (a coordinated request waiting for its replicas); it completes with
     * any non-streaming outcome or fails with the exceptions {@link Responses#error} maps.
     */
    record Pending(CompletionStage<Outcome> result) implements Outcome {
    }

    /** Internal API: this replica's newest entry for a key (tombstones included), or {@code null}. */
    record Stored(Entry entry) implements Outcome {
    }

    /** Internal API: a replica write was applied; the version the replica now holds for the key. */
    record Applied(long storedVersion) implements Outcome {
    }

    /** Internal API: one page of a replica scan. */
    record Page(EntryPage page) implements Outcome {
    }

    /** A binary or JSON answer for internal and admin paths ({@code 200}). */
    record Body(byte[] bytes, String contentType) implements Outcome {
    }

    /**
     * Not served: on an event loop, a write the engine could not take without waiting. The connection
     * handler runs the request again on a worker; nothing was answered.
     */
    record Blocked() implements Outcome {
    }

    /** The one {@link Blocked}. */
    Outcome BLOCKED = new Blocked();

    /**
     * The answer of a health or readiness check: {@code ok} (200) or not (503), with a one-line
     * {@code text} saying why.
     */
    record Probe(boolean ok, String text) implements Outcome {
    }

    /** A background job was started ({@code 202}). */
    record Started() implements Outcome {
    }
}
