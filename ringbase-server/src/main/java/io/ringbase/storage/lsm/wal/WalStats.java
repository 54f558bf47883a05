package io.ringbase.storage.lsm.wal;

import io.ringbase.logging.LogThrottle;
import io.ringbase.storage.WalSyncPolicy;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters of WAL activity shared by the segments of one engine (a segment is a {@link WalWriter}; an
 * engine writes many in turn), for metrics, and the throttle of the WARN lines about slow fsyncs
 * ({@link #slowSync}), which must hold across segments. Counters run since the engine opened. Thread-safe;
 * each batch of appends adds to three counters once, each fsync to two.
 */
public final class WalStats {

    private static final Logger log = LoggerFactory.getLogger(WalWriter.class); // the writer's logger, as before

    private final LongAdder appends = new LongAdder();
    private final LongAdder appendedBytes = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder syncs = new LongAdder();
    private final LongAdder syncNanos = new LongAdder();
    private final LongAdder failures = new LongAdder();
    /** The WARN line about slow fsyncs ({@link WalWriter#SLOW_SYNC_MS}): at most one per 10 s for the whole engine. */
    private final LogThrottle slowSyncLog = new LogThrottle(10, TimeUnit.SECONDS);

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
     * Logs (WARN, at most once per 10 s across the engine's segments) that an fsync of {@code segment} took
     * {@code nanos}, more than {@code slowMs}.
     */
    void slowSync(Path segment, long nanos, long slowMs, WalSyncPolicy policy) {
        long heldBack = slowSyncLog.tryLog();
        if (heldBack >= 0) {
            log.warn(
                    "WAL fsync of {} took {} ms (fsyncs over {} ms since the last such line: {}); {}. The disk, or "
                            + "its writeback of other files, is slow: check the device (iostat -x) or give the data "
                            + "directory a faster one",
                    segment.getFileName(),
                    TimeUnit.NANOSECONDS.toMillis(nanos),
                    slowMs,
                    heldBack + 1,
                    policy == WalSyncPolicy.ALWAYS
                            ? "every write waits for its fsync before it is acknowledged"
                            : "writes to the segment can block in write() behind it");
        }
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
