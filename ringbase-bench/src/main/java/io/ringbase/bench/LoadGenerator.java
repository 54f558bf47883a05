package io.ringbase.bench;

import java.io.IOException;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * A constant-rate load generator whose latencies are measured from each request's intended send time
 * (corrected for coordinated omission, as in wrk2). Several specs run side by side as separate processes,
 * pinned to the load CPU, and their results are merged.
 */
public interface LoadGenerator {

    /** The generators {@code ringbase bench} can run ({@code --load-generator}). */
    enum Kind {
        /** {@code bench/rategen/rategen.c}, compiled on first use: one epoll thread, no allocation after start. */
        RATEGEN,
        /** oha from crates.io, installed with cargo on first use. */
        OHA
    }

    /**
     * Runs all specs side by side for {@code durationS} seconds and merges what they measured, calling
     * {@code tick} with the elapsed seconds once a second while they run.
     *
     * @throws IOException if a generator fails or its output cannot be read (the message says why)
     */
    LoadResult run(List<LoadSpec> specs, int durationS, IntConsumer tick) throws IOException, InterruptedException;

    /** {@link #run(List, int, IntConsumer)} without progress ticks. */
    default LoadResult run(List<LoadSpec> specs, int durationS) throws IOException, InterruptedException {
        return run(specs, durationS, elapsedS -> {});
    }

    /** The generator's name, version and mode for the report, e.g. {@code oha 1.16.0 (-q RATE --latency-correction)}. */
    String describe();
}
