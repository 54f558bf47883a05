package io.ringbase.storage.lsm;

import io.ringbase.storage.DiskFault;
import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Whether the LSM engine can take writes, for {@link LsmEngine#unwritableReason()}: closing, the active
 * WAL segment poisoned, a flush being retried, or a write-path fault in the last
 * {@value #FAULT_HOLD_MS} ms. Thread-safe: every field is volatile, written by writers and the flusher.
 */
final class EngineHealth {

    /** A write-path fault is reported by {@link #unwritableReason} for this long, ms, unless a write succeeds. */
    static final long FAULT_HOLD_MS = 2000;

    /** The last write-path fault, until a write succeeds or {@value #FAULT_HOLD_MS} ms pass. */
    private volatile StorageFaultException lastFault;

    private volatile long lastFaultNanos;
    /** The failure of the last flush attempt while a flush is being retried; {@code null} once one succeeds. */
    private volatile StorageFaultException flushFailure;

    private volatile boolean closing;

    /** Whether {@link LsmEngine#close()} has begun: background work stops, waiters stop waiting. */
    boolean closing() {
        return closing;
    }

    void markClosing() {
        closing = true;
    }

    /** Records {@code f} for {@link #unwritableReason} and returns it. */
    StorageFaultException noteFault(StorageFaultException f) {
        lastFaultNanos = System.nanoTime();
        lastFault = f;
        return f;
    }

    /** A write went through: the disk takes writes again. */
    void writeWentThrough() {
        if (lastFault != null) {
            lastFault = null;
        }
    }

    /** The failure of the flush being retried, or {@code null} if flushes work. */
    StorageFaultException flushFailure() {
        return flushFailure;
    }

    /** Records that the last flush attempt failed with {@code failure} ({@code null}: it succeeded). */
    void flushFailure(StorageFaultException failure) {
        flushFailure = failure;
    }

    /**
     * Why the engine cannot take writes now, or {@code null}; see the class comment.
     *
     * @param active the active WAL segment
     */
    String unwritableReason(WalWriter active) {
        if (closing) {
            return "storage engine is closed";
        }
        IOException failure = active.failure();
        if (failure != null) {
            return DiskFault.classify(failure).description() + ": WAL segment "
                    + active.path().getFileName() + " failed (" + failure.getMessage()
                    + "); rolling to a fresh segment";
        }
        StorageFaultException flushing = flushFailure;
        if (flushing != null) {
            return flushing.getMessage() + "; retrying";
        }
        StorageFaultException last = lastFault;
        if (last != null && System.nanoTime() - lastFaultNanos < TimeUnit.MILLISECONDS.toNanos(FAULT_HOLD_MS)) {
            return last.getMessage();
        }
        return null;
    }
}
