package io.ringbase.cluster.membership;

import java.io.IOException;

/**
 * A data directory that belongs to another cluster, or to another position in the node list, than the one
 * the node was started with: nothing was changed, and the node does not start. The message is one line
 * naming both sides.
 */
public final class IdentityMismatchException extends IOException {
    public IdentityMismatchException(String message) {
        super(message);
    }
}
