package io.ringbase.cluster.replication;

/**
 * Runs a task after a delay: the timer of a speculative retry ({@link SpeculativeRetry}). The node's
 * ({@code server.SpeculationTimers}) queues it on the calling thread's event loop when there is one
 * (no hand-off), else on one of the replica client's loops. The task must not block.
 */
@FunctionalInterface
public interface Scheduler {

    /** Runs {@code task} once, about {@code delayNanos} ns from now. */
    void schedule(Runnable task, long delayNanos);
}
