package io.ringbase.api;

/** A request body over the configured limit; answered with 413. */
public final class PayloadTooLargeException extends Exception {

    private final int limitBytes;

    public PayloadTooLargeException(int limitBytes) {
        super("request body exceeds " + limitBytes + " bytes");
        this.limitBytes = limitBytes;
    }

    /** The limit that was passed (bytes). */
    public int limitBytes() {
        return limitBytes;
    }
}
