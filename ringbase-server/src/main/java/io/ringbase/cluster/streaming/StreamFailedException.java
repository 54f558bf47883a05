package io.ringbase.cluster.streaming;

/**
 * A stream that gave up: its source failed more often than the retries allow, or sent an entry this
 * node refused. The message names the plan, the source and the key the stream stopped at; what was
 * stored before the last durable cursor stays, and a new session for the same plan resumes there.
 */
public final class StreamFailedException extends Exception {

    StreamFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
