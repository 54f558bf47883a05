package io.ringbase.observe;

import java.util.List;

/**
 * The figures of a node's server-side functions (docs/functions.md) that metrics and the status report
 * read. Implementations are thread-safe and cheap to ask.
 */
public interface FunctionSource {

    /** One running job: its id, function, mode and progress. */
    record Job(String id, String function, String mode, long keysSeen, long recordsOut, long errors) {}

    /** The jobs running now. */
    List<Job> running();

    /** Jobs started since the node started. */
    long started();

    /** Jobs ended, any way, since the node started. */
    long ended();

    /** Calls that failed (trap, limit, error code) since the node started. */
    long failedCalls();

    /** Keys that ended jobs called their function on, since the node started. */
    long keysProcessed();
}
