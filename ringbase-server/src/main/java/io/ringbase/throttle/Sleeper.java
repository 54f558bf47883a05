package io.ringbase.throttle;

import java.time.Duration;

/** How a session waits: for its rate limit and between retries. A seam, so that tests wait for nothing. */
@FunctionalInterface
public interface Sleeper {

    /** {@link Thread#sleep}. */
    Sleeper SYSTEM = nanos -> Thread.sleep(Duration.ofNanos(nanos));

    /**
     * Waits about {@code nanos} ns.
     *
     * @throws InterruptedException if the thread is interrupted meanwhile
     */
    void sleepNanos(long nanos) throws InterruptedException;
}
