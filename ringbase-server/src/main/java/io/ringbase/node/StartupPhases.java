package io.ringbase.node;

import java.util.ArrayList;
import java.util.List;

/**
 * How long each phase of a node's start took, in the order they ran, for the line a node logs when it is ready
 * (an operator whose node is slow to start sees where the time went). Durations are measured with
 * {@link System#nanoTime()}: monotonic, not wall-clock time. Used by the one thread that starts the node.
 */
public final class StartupPhases {

    private final List<String> done = new ArrayList<>();
    private final long startNanos;
    private long lastNanos;

    /** Starts timing now. */
    public StartupPhases() {
        startNanos = System.nanoTime();
        lastNanos = startNanos;
    }

    /** Ends the phase that ran since the last call (or since this was made), naming it, e.g. {@code engine}. */
    public void end(String phase) {
        long now = System.nanoTime();
        done.add(phase + " " + (now - lastNanos) / 1_000_000 + " ms");
        lastNanos = now;
    }

    /** Milliseconds from when this was made to the end of the last phase. */
    public long totalMs() {
        return (lastNanos - startNanos) / 1_000_000;
    }

    /** The phases in order, e.g. {@code engine 120 ms, cluster services 35 ms, listening 12 ms}. */
    @Override
    public String toString() {
        return String.join(", ", done);
    }
}
