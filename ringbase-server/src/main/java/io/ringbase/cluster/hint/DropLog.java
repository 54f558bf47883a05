package io.ringbase.cluster.hint;

import io.ringbase.logging.LogThrottle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * WARN lines for dropped hints, at most one per target and reason per minute; each line says how many
 * were dropped for that reason since the previous line, so nothing is hidden, only summarised.
 * Thread-safe.
 */
final class DropLog {

    /** Why a hint was dropped. The names appear in log lines. */
    enum Reason {
        AGE("older than the age window"),
        BYTES("the hint store is at its byte bound"),
        OVERSIZE("its key or value leaves no room for the hint fields"),
        QUEUE_FULL("the hint queue is full"),
        WRITE_ERROR("the hint store could not write it");

        final String why;

        Reason(String why) {
            this.why = why;
        }
    }

    static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private record Slot(String target, Reason reason) {}

    private final Logger log;
    private final ConcurrentHashMap<Slot, LogThrottle> windows = new ConcurrentHashMap<>();

    DropLog(Logger log) {
        this.log = log;
    }

    /** Records one drop and logs it unless a line for the same target and reason was logged within a minute. */
    void dropped(String target, Reason reason, Object detail) {
        long more = windows.computeIfAbsent(
                        new Slot(target, reason), s -> new LogThrottle(INTERVAL_NANOS, TimeUnit.NANOSECONDS))
                .tryLog();
        if (more < 0) {
            return;
        }
        log.warn(
                "dropped a hint for node {} because {} ({}){}; anti-entropy will repair that replica",
                target,
                reason.why,
                detail,
                more > 0 ? " and " + more + " more in the last minute" : "");
    }
}
