package io.ringbase.storage.lsm.compaction;

/**
 * What the compaction picker knows of one live SSTable.
 *
 * @param number    the table's file number
 * @param sizeBytes the table's file size in bytes
 */
public record TableInfo(long number, long sizeBytes) {}
