/**
 * The write-ahead log: {@code WalWriter} appends checksummed, length-prefixed records with group
 * commit, encoded and written by {@code WalBatchWriter}; {@code WalSyncer} fsyncs them as the sync policy
 * asks, in the order of the log across segments; {@code WalReader} replays a segment, ignoring a torn
 * tail. Owns the WAL record format ({@code docs/format.md}).
 *
 * <p>Concurrency: a writer is thread-safe (appenders queue, and the head of the queue writes for all;
 * a periodic segment's sync thread fsyncs beside the queue); a reader is used by one thread.
 */
package io.ringbase.storage.lsm.wal;
