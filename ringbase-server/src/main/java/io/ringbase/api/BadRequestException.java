package io.ringbase.api;

import org.jspecify.annotations.Nullable;

/** The request is invalid (a missing or malformed parameter, an unknown path); answered with 400. */
public final class BadRequestException extends Exception {
    public BadRequestException(@Nullable String reason) {
        super(reason);
    }
}
