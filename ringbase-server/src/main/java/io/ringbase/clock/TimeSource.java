package io.ringbase.clock;

import java.util.function.LongSupplier;

/**
 * Where a node reads wall-clock time: Unix epoch milliseconds. Every package takes its time from one of
 * these instead of calling {@link System#currentTimeMillis()} (a build check bans direct wall-clock calls
 * outside {@code clock}), so tests can hand a node a clock they move themselves, as Cassandra's
 * {@code Clock} and FoundationDB's simulation do. Durations are measured with {@link System#nanoTime()},
 * which is monotonic and not wall-clock time.
 *
 * <p>It is a {@link LongSupplier} too ({@link #getAsLong()} is {@link #currentTimeMillis()}), so it can be
 * passed where a supplier of milliseconds is expected. Implementations are thread-safe.
 */
@FunctionalInterface
public interface TimeSource extends LongSupplier {

    /** The system's wall clock: the one direct call of {@link System#currentTimeMillis()} in main code. */
    TimeSource SYSTEM = System::currentTimeMillis;

    /** Now, Unix epoch ms. */
    long currentTimeMillis();

    @Override
    default long getAsLong() {
        return currentTimeMillis();
    }

    /** This clock moved by {@code offsetMs} (positive: ahead). */
    default TimeSource offsetBy(long offsetMs) {
        return offsetMs == 0 ? this : () -> currentTimeMillis() + offsetMs;
    }
}
