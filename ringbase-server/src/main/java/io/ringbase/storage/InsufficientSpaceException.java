package io.ringbase.storage;

import java.io.IOException;

/**
 * A compaction that did not start because the data directory's file system lacks room for its output
 * (at most the size of its inputs) plus two memtable flushes; nothing was changed. The automatic
 * compactions wait for the next flush instead; a major compaction asked for by an operator
 * ({@link ManagedEngine#compactAll}) fails with this, as Cassandra's {@code nodetool compact} refuses to
 * start without the space. The HTTP layer answers it with 507.
 */
public final class InsufficientSpaceException extends IOException {

    /**
     * @param what        what could not start, for the message ("compaction of 4 SSTables (20292118 bytes)")
     * @param neededBytes free bytes it needs, bytes
     * @param usableBytes free bytes there are, bytes
     */
    public InsufficientSpaceException(String what, long neededBytes, long usableBytes) {
        super("not enough free space for " + what + ": " + usableBytes + " bytes free where the data directory is, "
                + neededBytes + " needed (the output and two memtable flushes)");
    }
}
