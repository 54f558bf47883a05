package io.ringbase.cluster.replication;

import org.jspecify.annotations.Nullable;

/**
 * Whether this node may answer reads as a replica: a node that lost its data must count toward no read
 * quorum until it has streamed it back, or a quorum read could miss a write it had acknowledged before.
 * Writes are never gated. Implementations are thread-safe and cheap (read on every replica read).
 */
@FunctionalInterface
public interface ReadGate {

    /** A node that always answers reads (a node alone, tests). */
    ReadGate OPEN = () -> null;

    /** {@code null} if reads may be answered, else why not, one line for the caller. */
    @Nullable
    String readRefusal();
}
