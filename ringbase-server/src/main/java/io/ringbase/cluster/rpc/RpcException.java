package io.ringbase.cluster.rpc;

import org.jspecify.annotations.Nullable;

/**
 * A request the protocol refuses: 400 (bad parameters, an undecodable body, a version too far ahead
 * of this node's clock), 403 (no valid signature) or 405 (another method; {@link #allow()} names the
 * ones taken). The text is for the caller; {@link ReplicaServer} answers it as the status and one line.
 */
public final class RpcException extends Exception {
    private final int status;
    private final @Nullable String allow;

    RpcException(int status, @Nullable String message, @Nullable String allow) {
        super(message);
        this.status = status;
        this.allow = allow;
    }

    /** 400, 403 or 405. */
    public int status() {
        return status;
    }

    /** For a 405, the methods the path takes (for an {@code Allow} header); else {@code null}. */
    public @Nullable String allow() {
        return allow;
    }
}
