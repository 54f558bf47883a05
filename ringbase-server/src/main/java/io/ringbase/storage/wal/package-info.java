/**
 * The write-ahead log: {@code WalWriter} appends checksummed, length-prefixed records with group commit and a sync policy; {@code WalReader} replays a segment, ignoring a torn tail. Owns the WAL record format ({@code docs/format.md}).
 */
package io.ringbase.storage.wal;
