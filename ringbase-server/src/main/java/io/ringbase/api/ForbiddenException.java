package io.ringbase.api;

import org.jspecify.annotations.Nullable;

/**
 * A request refused for what its credentials allow, answered with 403: an internal or admin request
 * without a valid HMAC while a cluster secret is configured, or a client token without the permission
 * or key prefix the request needs. The message never holds a credential.
 */
public final class ForbiddenException extends Exception {
    public ForbiddenException(@Nullable String reason) {
        super(reason);
    }
}
