package io.ringbase.storage;

/**
 * When an engine forces its write-ahead log's records to stable storage (fsync): {@code --wal-sync}, which
 * both engines take. Under both policies a write returns only after its record has been handed to the
 * operating system ({@code write()} done), so a crash of the process alone (SIGKILL) never loses a
 * returned record; the policies differ in what an operating-system crash or power loss can lose.
 */
public enum WalSyncPolicy {
    /**
     * A write fsyncs before it returns: a returned record survives power loss.
     * Concurrent appenders share one fsync (group commit).
     */
    ALWAYS,
    /**
     * A write returns once its record is written to the operating system; the log is fsynced at least
     * every sync interval (default 1000 ms) while there is unsynced data. Power loss can lose up to about
     * one interval of returned records.
     */
    PERIODIC
}
