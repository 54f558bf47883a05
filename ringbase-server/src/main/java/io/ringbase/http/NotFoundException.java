package io.ringbase.http;

/** No resource at the request's path (an unknown path); answered with 404. */
public final class NotFoundException extends Exception {
    public NotFoundException(String reason) {
        super(reason);
    }
}
