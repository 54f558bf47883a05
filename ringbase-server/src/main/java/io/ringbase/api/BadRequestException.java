package io.ringbase.api;

/** The request is invalid (a missing or malformed parameter, an unknown path); answered with 400. */
public final class BadRequestException extends Exception {
    public BadRequestException(String reason) {
        super(reason);
    }
}
