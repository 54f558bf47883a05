package io.ringbase.throttle;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A token bucket of bytes (Turner, "New directions in communications", 1986; as Cassandra's
 * {@code stream_throughput_outbound}): tokens accrue at {@code bytesPerSecond} up to one second's worth,
 * and {@link #acquire} takes as many as it is given, waiting while the bucket is in debt. A page larger
 * than the bucket passes at once and its debt is paid by waiting, so the long-run rate holds whatever the
 * page size. The rate may change as it runs ({@link #setRate}). Not thread-safe: one thread uses it.
 */
public final class ByteRateLimiter {

    private static final double NANOS_PER_SECOND = 1e9;

    private long bytesPerSecond;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private double tokens;
    private long lastNanos;

    /**
     * @param bytesPerSecond the rate, bytes/s; 0 for unlimited
     * @param nanoTime       a monotonic clock, ns ({@code System::nanoTime})
     * @param sleeper        how to wait
     * @throws IllegalArgumentException if {@code bytesPerSecond} is negative
     */
    public ByteRateLimiter(long bytesPerSecond, LongSupplier nanoTime, Sleeper sleeper) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bytesPerSecond must be >= 0 (0: unlimited), got " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.lastNanos = nanoTime.getAsLong();
        this.tokens = bytesPerSecond; // a full bucket: the first second's bytes pass at once
    }

    /**
     * Takes {@code bytes} tokens, first waiting until the bucket is out of debt.
     *
     * @return the time waited, ns (0 when unlimited or in credit)
     * @throws InterruptedException if interrupted while waiting (the bytes are taken all the same)
     */
    public long acquire(long bytes) throws InterruptedException {
        if (bytesPerSecond == 0 || bytes <= 0) {
            return 0;
        }
        refill();
        tokens -= bytes;
        if (tokens >= 0) {
            return 0;
        }
        long waitNanos = (long) Math.ceil(-tokens * NANOS_PER_SECOND / bytesPerSecond);
        sleeper.sleepNanos(waitNanos);
        return waitNanos;
    }

    /**
     * Changes the rate from now on: the bytes already taken are paid at the old rate, and the bucket holds
     * at most one second's worth of the new one.
     *
     * @param bytesPerSecond the new rate, bytes/s, at least 1
     * @throws IllegalArgumentException if {@code bytesPerSecond < 1}, or this limiter is unlimited (it was made
     *                                  with 0)
     */
    public void setRate(long bytesPerSecond) {
        if (bytesPerSecond < 1 || this.bytesPerSecond == 0) {
            throw new IllegalArgumentException(
                    "can only change a limited rate to another one >= 1 bytes/s, got " + bytesPerSecond);
        }
        refill();
        this.bytesPerSecond = bytesPerSecond;
        tokens = Math.min(tokens, (double) bytesPerSecond);
    }

    /** The rate, bytes/s; 0 for unlimited. */
    public long rate() {
        return bytesPerSecond;
    }

    private void refill() {
        long now = nanoTime.getAsLong();
        long elapsed = now - lastNanos;
        lastNanos = now;
        if (elapsed > 0) {
            tokens = Math.min((double) bytesPerSecond, tokens + elapsed * (bytesPerSecond / NANOS_PER_SECOND));
        }
    }
}
