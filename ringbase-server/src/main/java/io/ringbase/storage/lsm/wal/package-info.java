/**
 * The write-ahead log: {@code WalWriter} appends checksummed, length-prefixed records with group commit and a sync policy; {@code WalReader} replays a segment, ignoring a torn tail. Owns the WAL record format ({@code docs/format.md}).
 *
 * <p>Concurrency: a writer is thread-safe (appenders queue, and the head of the queue writes for all); a
 * reader is used by one thread.
 */
package io.ringbase.storage.lsm.wal;
