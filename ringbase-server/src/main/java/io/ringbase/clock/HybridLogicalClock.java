package io.ringbase.clock;

import io.ringbase.logging.LogThrottle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Bounds.</b> A version from another node is observed only if its physical part is at most
 * {@code maxOffsetMs} ahead of this node's wall clock (default {@value #DEFAULT_MAX_OFFSET_MS} ms, as
 * CockroachDB's {@code --max-offset}); {@link #observe} refuses anything further ahead (and any negative
 * long) with a {@link ClockOffsetException} and an ERROR log line (at most one per
 * {@value #REFUSAL_LOG_INTERVAL_S} s, with the number of refusals since). One node with a skewed clock
 * or one forged version can therefore not drag this clock forward, and no input can overflow it: no
 * version above {@link #MAX_VERSION} (2^62: physical ms 2^46, the year 4199) is ever observed, so
 * readings stay far below 2^63. A node's own stored versions ({@link #observeStored}) are trusted up to
 * {@link #MAX_VERSION}.
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

    /** Default bound on how far a version from another node may be ahead of this node's wall clock (ms). */
    public static final long DEFAULT_MAX_OFFSET_MS = 500;
    /** Largest {@code maxOffsetMs} a clock accepts (ms): one day. */
    public static final long MAX_MAX_OFFSET_MS = TimeUnit.DAYS.toMillis(1);
    /**
     * Versions above this are never observed: physical ms 2^46 (the year 4199). It leaves 2^62 readings
     * of room below {@code Long.MAX_VALUE}, so {@link #now()} can never overflow.
     */
    public static final long MAX_VERSION = 1L << (46 + LOGICAL_BITS);
    /** Refusals are logged at most once per this many seconds. */
    static final long REFUSAL_LOG_INTERVAL_S = 10;

    private static final Logger log = LoggerFactory.getLogger(HybridLogicalClock.class);

    private final LongSupplier wallClockMs;
    private final long node;
    private final long maxOffsetMs;
    private final AtomicLong last = new AtomicLong();
    private final LogThrottle refusalLog = new LogThrottle(REFUSAL_LOG_INTERVAL_S, TimeUnit.SECONDS);

    /** The clock of a single node (index 0) on the system clock ({@link TimeSource#SYSTEM}). */
    public HybridLogicalClock() {
        this(TimeSource.SYSTEM, 0);
    }

    /**
     * The clock of node {@code nodeIndex} on the system clock ({@link TimeSource#SYSTEM}).
     *
     * @throws IllegalArgumentException unless {@code 0 <= nodeIndex < MAX_NODES}
     */
    public HybridLogicalClock(int nodeIndex) {
        this(TimeSource.SYSTEM, nodeIndex);
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
        this(wallClockMs, nodeIndex, DEFAULT_MAX_OFFSET_MS);
    }

    /**
     * A clock of node {@code nodeIndex} on the given wall clock (Unix epoch ms) that refuses versions more
     * than {@code maxOffsetMs} ahead of it.
     *
     * @throws IllegalArgumentException unless {@code 0 <= nodeIndex < MAX_NODES} and
     *                                  {@code 1 <= maxOffsetMs <= MAX_MAX_OFFSET_MS}
     */
    public HybridLogicalClock(LongSupplier wallClockMs, int nodeIndex, long maxOffsetMs) {
        if (nodeIndex < 0 || nodeIndex >= MAX_NODES) {
            throw new IllegalArgumentException("node index " + nodeIndex + " is outside 0.." + (MAX_NODES - 1));
        }
        if (maxOffsetMs < 1 || maxOffsetMs > MAX_MAX_OFFSET_MS) {
            throw new IllegalArgumentException(
                    "maximum clock offset must be 1 ms to 1 day, got " + maxOffsetMs + " ms");
        }
        this.wallClockMs = wallClockMs;
        this.node = nodeIndex;
        this.maxOffsetMs = maxOffsetMs;
    }

    /** How far ahead of this node's wall clock a version from another node may be (ms). */
    public long maxOffsetMs() {
        return maxOffsetMs;
    }

    /**
     * A new version, greater than every version this clock has issued or {@linkplain #observe seen},
     * with this clock's node index in its low {@link #NODE_BITS} bits.
     *
     * @throws IllegalStateException if the wall clock reads beyond {@link #MAX_VERSION}'s physical part
     *                               (the readings would run out)
     */
    public long now() {
        long wall = wallClockMs.getAsLong();
        if (wall < 0 || wall > physicalMs(MAX_VERSION)) {
            throw new IllegalStateException(
                    "the wall clock reads " + wall + " ms, outside 0.." + physicalMs(MAX_VERSION));
        }
        long physical = wall << LOGICAL_BITS;
        // (prev | NODE_MASK) + 1 is the next counter step above prev whatever node issued prev; prev is at
        // most MAX_VERSION plus the steps taken since, far from overflowing
        return last.updateAndGet(prev -> Math.max((prev | NODE_MASK) + 1, physical) | node);
    }

    /**
     * Advances the clock past a version seen from another node (a replica's answer, a replica write, an
     * entry received by repair), unless it is further ahead of this node's wall clock than
     * {@link #maxOffsetMs()}: then the clock is left as it is, an ERROR line is logged (rate-limited) and
     * the caller must not store or use the version.
     *
     * @throws ClockOffsetException if {@code version} is negative or its physical part is more than
     *                              {@link #maxOffsetMs()} ahead of the wall clock
     */
    public void observe(long version) throws ClockOffsetException {
        long aheadMs = version < 0 ? Long.MAX_VALUE : physicalMs(version) - wallClockMs.getAsLong();
        if (aheadMs > maxOffsetMs) {
            ClockOffsetException refused = new ClockOffsetException(version, aheadMs, maxOffsetMs);
            logRefusal(refused);
            throw refused;
        }
        last.accumulateAndGet(version, Math::max);
    }

    /**
     * Advances the clock past a version this node stored itself (the newest version in its engine at
     * start), so it never issues a lower one after a restart, even if its wall clock stepped back. Such a
     * version is trusted beyond {@link #maxOffsetMs()} (a WARN line says the node's writes will be
     * refused by its peers until its wall clock catches up), but not beyond {@link #MAX_VERSION}.
     *
     * @return whether the version was observed; {@code false} (with an ERROR line) for a negative version
     *         or one above {@link #MAX_VERSION}, which only damage or a forged write can have stored:
     *         writes to that key then lose to it
     */
    public boolean observeStored(long version) {
        if (version < 0 || version > MAX_VERSION) {
            log.error(
                    "stored version {} is outside 0..{} (not a clock reading of this millennium); the clock "
                            + "ignores it, and writes to its key will lose to it",
                    version,
                    MAX_VERSION);
            return false;
        }
        long aheadMs = physicalMs(version) - wallClockMs.getAsLong();
        if (aheadMs > maxOffsetMs) {
            log.warn(
                    "the newest stored version is {} ms ahead of this node's wall clock (maximum offset {} ms): "
                            + "peers refuse this node's writes until its clock catches up",
                    aheadMs,
                    maxOffsetMs);
        }
        last.accumulateAndGet(version, Math::max);
        return true;
    }

    private void logRefusal(ClockOffsetException refused) {
        long more = refusalLog.tryLog();
        if (more < 0) {
            return;
        }
        log.error(
                "{}{}; is a clock skewed? (check NTP on every node)",
                refused.getMessage(),
                more > 0 ? " (and " + more + " more refusals in the last " + REFUSAL_LOG_INTERVAL_S + " s)" : "");
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
