package io.ringbase.storage.wal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of WAL activity shared by the segments of one engine (a segment is a {@link WalWriter}; an
 * engine writes many in turn), for metrics, and the rate limit of the WARN lines about slow fsyncs
 * ({@link #slowSync}), which must hold across segments. Counters run since the engine opened. Thread-safe;
 * each batch of appends adds to three counters once, each fsync to two.
 */
public final class WalStats {

    private final LongAdder appends = new LongAdder();
    private final LongAdder appendedBytes = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder syncs = new LongAdder();
    private final LongAdder syncNanos = new LongAdder();
    private final LongAdder failures = new LongAdder();
    /** Slow fsyncs since the last WARN line about them, and when that line was written (ns, nanoTime). */
    private final AtomicLong slowSyncsUnlogged = new AtomicLong();
    private final AtomicLong lastSlowSyncLogNanos = new AtomicLong(System.nanoTime() - SLOW_SYNC_LOG_INTERVAL_NANOS);

    /** An fsync that takes longer than this, ms, is slow: a WAL fsync on a healthy SSD takes well under 10 ms. */
    public static final long SLOW_SYNC_MS = 100;
    /** At most one WARN line about slow fsyncs per this many ns (10 s), for the whole engine. */
    static final long SLOW_SYNC_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** A batch of {@code records} records, {@code bytes} bytes, written with one {@code write()}. */
    void written(int records, long bytes) {
        appends.add(records);
        appendedBytes.add(bytes);
        writes.increment();
    }

    /** One fsync that took {@code nanos}. */
    void synced(long nanos) {
        syncs.increment();
        syncNanos.add(nanos);
    }

    /**
     * Counts an fsync slower than {@link #SLOW_SYNC_MS}, at {@code nowNanos} ({@link System#nanoTime()}).
     *
     * @return how many slow fsyncs the caller should report in a WARN line (this one and those not yet
     *         reported), or 0 if a line was written less than 10 s ago
     */
    long slowSync(long nowNanos) {
        slowSyncsUnlogged.incrementAndGet();
        long last = lastSlowSyncLogNanos.get();
        if (nowNanos - last < SLOW_SYNC_LOG_INTERVAL_NANOS || !lastSlowSyncLogNanos.compareAndSet(last, nowNanos)) {
            return 0;
        }
        return slowSyncsUnlogged.getAndSet(0);
    }

    /** A {@code write()} or fsync failed and poisoned its segment. */
    void failed() {
        failures.increment();
    }

    /** Records appended (written to the file). */
    public long appends() {
        return appends.sum();
    }

    /** Bytes of records appended, headers included. */
    public long appendedBytes() {
        return appendedBytes.sum();
    }

    /** {@code write()} calls (group commit: one per batch). */
    public long writes() {
        return writes.sum();
    }

    /** fsyncs after the segment header (periodic, per-write and closing ones). */
    public long syncs() {
        return syncs.sum();
    }

    /** Time spent in those fsyncs, ns. */
    public long syncNanos() {
        return syncNanos.sum();
    }

    /** Failed writes and fsyncs (each poisons its segment: a disk error). */
    public long failures() {
        return failures.sum();
    }
}
