package io.ringbase.node;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * What a node has opened, closed in the reverse order: the assembly registers each part as it opens it,
 * so a start that fails half way releases exactly what it had opened, and a normal stop closes the parts
 * in the order that is safe (the HTTP server first, the engine last). Not thread-safe: the node's start
 * and its close use it, one after the other.
 */
final class Resources implements AutoCloseable {

    /** How a part is closed. */
    @FunctionalInterface
    interface Closer<T> {
        void close(T part) throws Exception;
    }

    /** One registered part with its closer. */
    private record Opened<T>(T part, Closer<? super T> closer) {
        void close() throws Exception {
            closer.close(part);
        }
    }

    private final ArrayDeque<Opened<?>> opened = new ArrayDeque<>();

    /** Registers the part just opened with how to close it; returns {@code part}. */
    <T> T add(T part, Closer<? super T> closer) {
        opened.push(new Opened<>(part, closer));
        return part;
    }

    /** Registers an {@link AutoCloseable} part just opened; returns it. */
    <T extends AutoCloseable> T add(T part) {
        return add(part, AutoCloseable::close);
    }

    /**
     * Closes every registered part, newest first, each even if an earlier one failed.
     *
     * @throws IOException the first failure, the others added to it as suppressed
     */
    @Override
    public void close() throws IOException {
        Exception first = null;
        Opened<?> c;
        while ((c = opened.poll()) != null) {
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first instanceof IOException io) {
            throw io;
        }
        if (first instanceof RuntimeException re) {
            throw re;
        }
        if (first != null) {
            throw new IOException("closing the node failed", first);
        }
    }

    /** Closes every registered part after a failed start; failures of the closing join {@code cause}. */
    void closeAfter(Throwable cause) {
        try {
            close();
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }
}
