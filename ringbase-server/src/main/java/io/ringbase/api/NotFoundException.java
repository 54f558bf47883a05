package io.ringbase.api;

/**
 * No resource at a known path: its function is off on this node (metrics with {@code --no-metrics}, reports
 * and admin endpoints on a bare server); answered with 404. An unknown path is a {@link BadRequestException}.
 */
public final class NotFoundException extends Exception {
    public NotFoundException(String reason) {
        super(reason);
    }
}
