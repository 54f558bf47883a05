package io.ringbase.faults.history;

/**
 * One client operation on one key, as in a Jepsen history: what was asked, when, and what came of it.
 *
 * @param process        the client that ran it (a client runs one operation at a time)
 * @param f              the operation
 * @param key            the key
 * @param value          for a write, the value written; for a read that completed, the value read
 *                       ({@code null}: 404); {@code null} for a delete; for a compare-and-set, the value
 *                       it expected and the one it wrote ({@link #cas})
 * @param invokeNanos    {@link System#nanoTime()} just before the request was sent
 * @param completeNanos  {@link System#nanoTime()} once its answer (or failure) was in
 * @param outcome        what the answer says about the operation's effect
 * @param note           the answer, for people (status and the start of the body, or the exception)
 */
public record Op(
        String process,
        Fn f,
        String key,
        String value,
        long invokeNanos,
        long completeNanos,
        Outcome outcome,
        String note) {

    /** What a client asked for. */
    public enum Fn {
        READ,
        WRITE,
        DELETE,
        /** A conditional write (If-Match / If-None-Match: *) that was applied, or whose effect is unknown. */
        CAS,
        /** A conditional write answered 412: it saw another value than it expected and wrote nothing. */
        CAS_REFUSED
    }

    /** What stands for "no value" as a compare-and-set's expected value (values never equal it). */
    public static final String ABSENT = "~";

    private static final String ARROW = "=>";

    /** The {@link #value} of a compare-and-set from {@code expected} ({@code null}: absent) to {@code next}. */
    public static String cas(String expected, String next) {
        return (expected == null ? ABSENT : expected) + ARROW + next;
    }

    /** The value a compare-and-set expected ({@code null}: absent). */
    public String expected() {
        String e = value.substring(0, value.indexOf(ARROW));
        return e.equals(ABSENT) ? null : e;
    }

    /** The value a compare-and-set wrote (or would have). */
    public String next() {
        return value.substring(value.indexOf(ARROW) + ARROW.length());
    }

    /** What an answer says about an operation's effect. */
    public enum Outcome {
        /** It took effect (a write or delete) or returned this value (a read). */
        OK,
        /** It certainly had no effect (refused before anything was sent, connection refused, 4xx). */
        FAIL,
        /** It may or may not have taken effect, now or later (a timeout, a 504 'timeout', a broken connection). */
        UNKNOWN
    }

    public Op {
        if (completeNanos < invokeNanos) {
            throw new IllegalArgumentException("completed before invoked: " + invokeNanos + " > " + completeNanos);
        }
    }

    /** Whether the operation changes the key (a write or delete). */
    public boolean isWrite() {
        return f != Fn.READ && f != Fn.CAS_REFUSED;
    }

    /** One line for a history file: times in ms from {@code originNanos}. */
    public String toLine(long originNanos) {
        return String.format(
                "%10.3f %10.3f %-10s %-7s %-6s %-14s %-22s %s",
                (invokeNanos - originNanos) / 1e6,
                (completeNanos - originNanos) / 1e6,
                process,
                outcome,
                f,
                key,
                value == null ? "-" : value,
                note == null ? "" : note);
    }
}
