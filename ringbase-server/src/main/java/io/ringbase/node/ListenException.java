package io.ringbase.node;

import java.io.IOException;

/** The node's HTTP port could not be bound (in use, not permitted, no such address); keeps the cause. */
public final class ListenException extends IOException {

    private final String address;

    /**
     * @param address {@code host:port} the node tried to bind
     * @param cause   the bind's failure
     */
    public ListenException(String address, Throwable cause) {
        super("cannot listen on " + address + ": " + reason(cause), cause);
        this.address = address;
    }

    /** {@code host:port} the node tried to bind. */
    public String address() {
        return address;
    }

    /**
     * The cause's message without Netty's prefix ({@code bind(..) failed with error(-98): }), lower-cased
     * at the start: {@code address already in use}.
     */
    private static String reason(Throwable cause) {
        String m = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        int failed = m.indexOf("failed");
        int colon = failed < 0 ? -1 : m.indexOf(": ", failed);
        if (colon >= 0) {
            m = m.substring(colon + 2);
        }
        return m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }
}
