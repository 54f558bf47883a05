package io.ringbase.storage.lsm.sstable;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Chooses how one table's point reads reach its blocks, from how long sampled reads took: through the
 * file mapping, which costs no system call and is the fastest way while the table is in the page cache,
 * or with {@code pread(2)} ({@link io.ringbase.os.NativeFile}) once it is not. A fault in a mapping
 * makes the kernel read up to the device's {@code read_ahead_kb} around the faulting page (8 MiB on
 * this project's VM): measured with a 1.5 GiB memory limit over 3.1 GB of tables, point reads through
 * the mapping ran at 353 a second, RocksDB's preads at 12,571. A
 * {@code pread} reads the block it was asked for and costs a system call (about a microsecond) when the
 * block is cached.
 *
 * <p><b>Rule.</b> A read is slow if it took {@link #SLOW_NANOS} or more: it waited for the device (a
 * cached 4 KiB block takes a few microseconds either way). Through the mapping, a sample of reads is
 * timed in windows of {@link #MAPPED_WINDOW}; {@link #MAPPED_SLOW} slow ones in a window switch the table
 * to {@code pread}. With {@code pread}, every read is timed in windows of {@link #PREAD_WINDOW}; a window
 * with fewer than {@link #PREAD_SLOW} slow ones (the table is back in the page cache) switches it back.
 * Two slow samples rather than one, so that a thread preempted once does not switch; whichever way a
 * wrong switch goes, the next window undoes it.
 *
 * <p><b>Start.</b> A table opens on {@code pread} when less than {@link #MAPPED_FROM_RESIDENT} of its data
 * section is in the page cache ({@link io.ringbase.os.PageResidency}, {@code mincore(2)}), else on the
 * mapping. Starting every table on the mapping made a node opened over cold tables fault megabytes per
 * point read, on its event loops, until each table had seen two slow samples: wrk's p99 over 30 s of
 * cold GETs was 0.5 s.
 *
 * <p>Thread-safe and lock-free: one {@link AtomicLong} holds the window's counts.
 */
final class ReadPathGauge {

    /** A read that took this long or more waited for the device, ns. */
    static final long SLOW_NANOS = 50_000;
    /** Timed reads through the mapping per window. */
    static final int MAPPED_WINDOW = 16;
    /** Slow reads through the mapping in one window that switch the table to {@code pread}. */
    static final int MAPPED_SLOW = 2;
    /** Timed {@code pread}s per window. */
    static final int PREAD_WINDOW = 256;
    /** A window of {@code pread}s with fewer slow ones than this switches the table back to the mapping. */
    static final int PREAD_SLOW = 2;

    /**
     * A table opens on the mapping if at least this fraction of its data section is in the page cache;
     * about what a {@code pread} window that switches back sees (fewer than 2 slow reads in 256).
     */
    static final double MAPPED_FROM_RESIDENT = 0.99;

    /** Samples in the window (high 32 bits) and slow ones among them (low 32 bits). */
    private final AtomicLong window = new AtomicLong();

    private volatile boolean pread;
    private final AtomicLong switches = new AtomicLong();

    /**
     * @param residentFraction the fraction of the table's data section in the page cache at open, or a
     *                         negative number if unknown (the table then starts on the mapping)
     */
    ReadPathGauge(double residentFraction) {
        this.pread = residentFraction >= 0 && residentFraction < MAPPED_FROM_RESIDENT;
    }

    /** Whether point reads should use {@code pread} now. */
    boolean preads() {
        return pread;
    }

    /** How many times the choice changed (for tests and statistics). */
    long switches() {
        return switches.get();
    }

    /**
     * Counts one timed read made the way {@link #preads()} said, which took {@code nanos}; may switch.
     */
    void record(long nanos) {
        long w = window.addAndGet((1L << 32) | (nanos >= SLOW_NANOS ? 1 : 0));
        int samples = (int) (w >>> 32);
        int slow = (int) w;
        if (!pread) {
            if (slow >= MAPPED_SLOW) {
                change(w, true);
            } else if (samples >= MAPPED_WINDOW) {
                window.compareAndSet(w, 0);
            }
        } else if (samples >= PREAD_WINDOW) {
            if (slow < PREAD_SLOW) {
                change(w, false);
            } else {
                window.compareAndSet(w, 0);
            }
        }
    }

    /** Switches to {@code toPread} if this thread is the one to close window {@code w}. */
    private void change(long w, boolean toPread) {
        if (window.compareAndSet(w, 0)) {
            pread = toPread;
            switches.incrementAndGet(); // two windows may close at once
        }
    }

    @Override
    public String toString() {
        return pread ? "pread" : "mapping";
    }
}
