package io.ringbase.tls;

import java.io.IOException;

/** The TLS files cannot be used: missing, unreadable, not PEM, or a key that does not match its certificate. */
public final class TlsException extends IOException {

    private static final long serialVersionUID = 1L;

    public TlsException(String message) {
        super(message);
    }

    public TlsException(String message, Throwable cause) {
        super(message, cause);
    }
}
