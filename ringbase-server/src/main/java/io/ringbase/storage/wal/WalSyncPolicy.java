package io.ringbase.storage.wal;

/**
 * When a {@link WalWriter} forces appended records to stable storage (fsync). Under both policies
 * {@link WalWriter#append} returns only after the record has been handed to the operating system
 * ({@code write()} done), so a crash of the process alone (SIGKILL) never loses a returned record; the
 * policies differ in what an operating-system crash or power loss can lose.
 */
public enum WalSyncPolicy {
    /**
     * {@link WalWriter#append} fsyncs before it returns: a returned record survives power loss.
     * Concurrent appenders share one fsync (group commit).
     */
    ALWAYS,
    /**
     * {@link WalWriter#append} returns once the record is written to the operating system; the writer
     * fsyncs at least every {@code periodicSyncIntervalMs} (default
     * {@value WalWriter#DEFAULT_PERIODIC_SYNC_INTERVAL_MS} ms) while there is unsynced data. Power loss
     * can lose up to about one interval of returned records.
     */
    PERIODIC
}
