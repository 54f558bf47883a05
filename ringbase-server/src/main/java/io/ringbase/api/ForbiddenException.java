package io.ringbase.api;

/** An internal request without a valid HMAC while a cluster secret is configured; answered with 403. */
public final class ForbiddenException extends Exception {
    public ForbiddenException(String reason) {
        super(reason);
    }
}
