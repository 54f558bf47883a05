package io.ringbase.storage;

import java.nio.file.Path;

/**
 * A snapshot taken by {@link ManagedEngine#snapshot}: a complete data directory as of a flush, its
 * immutable files shared with the live directory by hard links.
 *
 * @param dir      its directory, {@code <data-dir>/snapshots/<name>} ({@link DataDirectory#snapshot})
 * @param sstables table files linked into it (SSTables of either engine)
 * @param bytes    their size, bytes
 */
public record Snapshot(Path dir, int sstables, long bytes) {}
