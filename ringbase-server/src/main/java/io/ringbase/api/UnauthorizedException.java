package io.ringbase.api;

/**
 * A request without a client token, or with one the node does not know, while the node has a token file;
 * answered with 401 and {@code WWW-Authenticate: Bearer} (RFC 6750 §3). The message never holds the token.
 */
public final class UnauthorizedException extends Exception {

    private final boolean presented;

    /** @param presented whether the request carried a token (then unknown: {@code error="invalid_token"}) */
    public UnauthorizedException(boolean presented) {
        super(
                presented
                        ? "unknown client token (Authorization: Bearer <token> of the node's --token-file)"
                        : "a client token is required: send Authorization: Bearer <token>");
        this.presented = presented;
    }

    /** The {@code WWW-Authenticate} value of the 401 (RFC 6750 §3). */
    String challenge() {
        return presented ? "Bearer realm=\"ringbase\", error=\"invalid_token\"" : "Bearer realm=\"ringbase\"";
    }
}
