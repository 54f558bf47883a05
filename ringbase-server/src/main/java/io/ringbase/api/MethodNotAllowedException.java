package io.ringbase.api;

/** The path exists but does not take the request's method; answered with 405 and an {@code Allow} header. */
public final class MethodNotAllowedException extends Exception {
    private final String allow;

    /** @param allow the value of the {@code Allow} header, e.g. {@code "GET, PUT, DELETE"} */
    public MethodNotAllowedException(String method, String allow) {
        super("method " + method + " not allowed; allowed: " + allow);
        this.allow = allow;
    }

    /** The methods the path takes, as an {@code Allow} header value. */
    public String allow() {
        return allow;
    }
}
