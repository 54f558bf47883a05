package io.ringbase.http;

import io.ringbase.cluster.scan.EntryBatchSource;

/**
 * What a successful API call produced. Outcomes carry no status codes: {@link Responses} alone turns
 * them (and failures) into HTTP responses.
 */
sealed interface Outcome {

    /** A live value was found; {@code bytes} is the stored array, not a copy. */
    record Value(byte[] bytes) implements Outcome {
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

    /** A key range to stream, live entries only; the receiver owns {@code source} and must close it. */
    record Range(EntryBatchSource source) implements Outcome {
    }
}
