package io.ringbase.api;

import org.jspecify.annotations.Nullable;

/** An internal request without a valid HMAC while a cluster secret is configured; answered with 403. */
public final class ForbiddenException extends Exception {
    public ForbiddenException(@Nullable String reason) {
        super(reason);
    }
}
