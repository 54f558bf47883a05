package io.ringbase.logging;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one log line per interval for one kind of event, from any number of threads: each event
 * asks {@link #tryLog()}, and only the first after the interval gets to log, with the number of events
 * held back since the previous line. The first event ever logs. Thread-safe; lock-free.
 */
public final class LogThrottle {

    private final long intervalNanos;
    private final AtomicLong lastLogNanos;
    private final AtomicLong heldBack = new AtomicLong();

    /**
     * @param interval the least time between two lines, &gt; 0
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public LogThrottle(long interval, TimeUnit unit) {
        if (interval <= 0) {
            throw new IllegalArgumentException("interval " + interval + " " + unit);
        }
        this.intervalNanos = unit.toNanos(interval);
        this.lastLogNanos = new AtomicLong(System.nanoTime() - intervalNanos);
    }

    /**
     * Records one event.
     *
     * @return {@code -1} if a line was logged less than the interval ago (this event is counted as held
     *         back), else the number of events held back since the previous line: the caller logs now
     */
    public long tryLog() {
        long now = System.nanoTime();
        long last = lastLogNanos.get();
        if (now - last < intervalNanos || !lastLogNanos.compareAndSet(last, now)) {
            heldBack.incrementAndGet();
            return -1;
        }
        return heldBack.getAndSet(0);
    }
}
