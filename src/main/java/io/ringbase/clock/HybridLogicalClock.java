package io.ringbase.clock;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", OPODIS 2014): versions that track
 * the wall clock in milliseconds but are strictly monotonic per node, never fall behind any version
 * the node has seen, and are unique across the nodes of a cluster.
 *
 * <p>A reading is a 64-bit long, compared as a plain long:
 * <pre>
 *   bits 63..16  physical Unix epoch milliseconds (48 bits)
 *   bits 15..6   logical counter within the millisecond (10 bits; when it runs out the reading moves
 *                into the next millisecond ahead of the wall clock, as HLC allows)
 *   bits  5..0   the issuing node's index (0..63)
 * </pre>
 * The node bits make two nodes' readings differ even within one millisecond, so two different writes
 * never share a version and last-writer-wins never has to fall back to comparing values (a tie only
 * happens between copies of the same write). Readings observed from other nodes carry their node bits;
 * the next reading of this clock is still above them.
 *
 * <p>Thread-safe and lock-free.
 */
public final class HybridLogicalClock {

    /** Bits below the physical milliseconds (counter and node index). */
    public static final int LOGICAL_BITS = 16;
    /** Bits of the node index, the lowest of a reading. */
    public static final int NODE_BITS = 6;
    /** Most nodes a cluster may have: node indexes are 0 to {@code MAX_NODES - 1}. */
    public static final int MAX_NODES = 1 << NODE_BITS;
    private static final long LOGICAL_MASK = (1L << LOGICAL_BITS) - 1;
    private static final long NODE_MASK = MAX_NODES - 1;

    private final LongSupplier wallClockMs;
    private final long node;
    private final AtomicLong last = new AtomicLong();

    /** The clock of a single node (index 0) on {@link System#currentTimeMillis()}. */
    public HybridLogicalClock() {
        this(System::currentTimeMillis, 0);
    }

    /**
     * The clock of node {@code nodeIndex} on {@link System#currentTimeMillis()}.
     *
     * @throws IllegalArgumentException unless {@code 0 <= nodeIndex < MAX_NODES}
     */
    public HybridLogicalClock(int nodeIndex) {
        this(System::currentTimeMillis, nodeIndex);
    }

    /** A clock of node 0 on the given wall clock (Unix epoch ms), for tests. */
    public HybridLogicalClock(LongSupplier wallClockMs) {
        this(wallClockMs, 0);
    }

    /**
     * A clock of node {@code nodeIndex} on the given wall clock (Unix epoch ms).
     *
     * @throws IllegalArgumentException unless {@code 0 <= nodeIndex < MAX_NODES}
     */
    public HybridLogicalClock(LongSupplier wallClockMs, int nodeIndex) {
        if (nodeIndex < 0 || nodeIndex >= MAX_NODES) {
            throw new IllegalArgumentException("node index " + nodeIndex + " is outside 0.." + (MAX_NODES - 1));
        }
        this.wallClockMs = wallClockMs;
        this.node = nodeIndex;
    }

    /**
     * A new version, greater than every version this clock has issued or {@linkplain #observe seen},
     * with this clock's node index in its low {@link #NODE_BITS} bits.
     */
    public long now() {
        long physical = wallClockMs.getAsLong() << LOGICAL_BITS;
        // (prev | NODE_MASK) + 1 is the next counter step above prev whatever node issued prev
        return last.updateAndGet(prev -> Math.max((prev | NODE_MASK) + 1, physical) | node);
    }

    /** Advances the clock past a version seen from elsewhere (a replica's answer, a recovered entry). */
    public void observe(long version) {
        last.accumulateAndGet(version, Math::max);
    }

    /** The physical part of a version, in Unix epoch ms. */
    public static long physicalMs(long version) {
        return version >>> LOGICAL_BITS;
    }

    /** The logical counter of a version (within its millisecond). */
    public static long logical(long version) {
        return (version & LOGICAL_MASK) >>> NODE_BITS;
    }

    /** The index of the node whose clock issued a version. */
    public static int node(long version) {
        return (int) (version & NODE_MASK);
    }

    /** The smallest version whose physical part is {@code ms}. */
    public static long fromPhysicalMs(long ms) {
        return ms << LOGICAL_BITS;
    }
}
