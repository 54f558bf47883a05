package io.ringbase.faults.nemesis;

/**
 * One membership change a nemesis made (a join or a decommission), from its start to the moment it was seen
 * finished (or given up), in {@link System#nanoTime()}.
 *
 * @param what          {@code "join n3"}, {@code "decommission n4"}
 * @param startNanos    when the nemesis started it (the joining node's start, the decommission request)
 * @param endNanos      when it saw it finish or gave up
 * @param faultInjected whether another fault (a killed node) overlapped it: a client request that failed in a
 *                      window without one is a finding of the membership change itself
 */
public record ChangeWindow(String what, long startNanos, long endNanos, boolean faultInjected) {

    public ChangeWindow {
        if (endNanos < startNanos) {
            throw new IllegalArgumentException(what + " ends before it starts: " + startNanos + " > " + endNanos);
        }
    }

    /** Whether {@code nanos} falls in the window. */
    public boolean contains(long nanos) {
        return nanos >= startNanos && nanos <= endNanos;
    }
}
