package io.ringbase.clock;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", OPODIS 2014): versions that track
 * the wall clock in milliseconds but are strictly monotonic per node and never fall behind any version
 * the node has seen.
 *
 * <p>A reading is a 64-bit long: the high 48 bits are physical Unix epoch milliseconds, the low 16 bits
 * a logical counter that orders readings within one millisecond. Readings compare as plain longs.
 *
 * <p>Thread-safe and lock-free.
 */
public final class HybridLogicalClock {

    /** Bits of the logical counter. */
    public static final int LOGICAL_BITS = 16;
    private static final long LOGICAL_MASK = (1L << LOGICAL_BITS) - 1;

    private final LongSupplier wallClockMs;
    private final AtomicLong last = new AtomicLong();

    /** A clock on {@link System#currentTimeMillis()}. */
    public HybridLogicalClock() {
        this(System::currentTimeMillis);
    }

    /** A clock on the given wall clock (Unix epoch ms), for tests. */
    public HybridLogicalClock(LongSupplier wallClockMs) {
        this.wallClockMs = wallClockMs;
    }

    /** A new version, greater than every version this clock has issued or {@linkplain #observe seen}. */
    public long now() {
        long physical = wallClockMs.getAsLong() << LOGICAL_BITS;
        return last.updateAndGet(prev -> Math.max(prev + 1, physical));
    }

    /** Advances the clock past a version seen from elsewhere (a replica's answer, a recovered entry). */
    public void observe(long version) {
        last.accumulateAndGet(version, Math::max);
    }

    /** The physical part of a version, in Unix epoch ms. */
    public static long physicalMs(long version) {
        return version >>> LOGICAL_BITS;
    }

    /** The logical counter of a version. */
    public static long logical(long version) {
        return version & LOGICAL_MASK;
    }

    /** The smallest version whose physical part is {@code ms}. */
    public static long fromPhysicalMs(long ms) {
        return ms << LOGICAL_BITS;
    }
}
