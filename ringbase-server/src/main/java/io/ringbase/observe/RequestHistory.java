package io.ringbase.observe;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The last {@value #POINTS} intervals of {@value #INTERVAL_SECONDS} s of client requests (ten minutes), kept in
 * memory for the status page's graphs: per interval, the rate, the 99th percentile latency and the rate of
 * 5xx answers. A daemon thread samples {@link RequestMetrics} at each interval's end; {@link #close()} stops
 * it. Thread-safe; its memory is bounded by {@value #POINTS} points.
 */
public final class RequestHistory implements AutoCloseable {

    /** Seconds per point. */
    public static final int INTERVAL_SECONDS = 10;
    /** Points kept, oldest dropped first. */
    public static final int POINTS = 60;

    /**
     * One interval's client requests.
     *
     * @param perSecond       requests answered per second
     * @param p99Ms           their 99th percentile latency, ms (0 without requests)
     * @param errorsPerSecond 5xx answers per second
     */
    public record Point(double perSecond, double p99Ms, double errorsPerSecond) {}

    private final RequestMetrics requests;
    private final ArrayDeque<Point> points = new ArrayDeque<>(); // guarded by this
    private final ScheduledExecutorService sampler;
    private LatencyHistogram.Snapshot last; // guarded by this
    private long lastErrors; // guarded by this
    private long lastNanos; // guarded by this

    /** Starts sampling {@code requests} every {@value #INTERVAL_SECONDS} s. */
    public RequestHistory(RequestMetrics requests) {
        this(requests, true);
    }

    /** With {@code sampling} false, points come only from {@link #sample()} (tests). */
    RequestHistory(RequestMetrics requests, boolean sampling) {
        this.requests = requests;
        this.last = requests.clientLatency();
        this.lastErrors = requests.clientErrors();
        this.lastNanos = System.nanoTime();
        this.sampler = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("request-history", true));
        if (sampling) {
            var _ = sampler.scheduleAtFixedRate(this::sample, INTERVAL_SECONDS, INTERVAL_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Ends the interval now: appends its point, dropping the oldest beyond {@value #POINTS}. */
    synchronized void sample() {
        long now = System.nanoTime();
        LatencyHistogram.Snapshot current = requests.clientLatency();
        long errors = requests.clientErrors();
        double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
        LatencyHistogram.Snapshot interval = current.minus(last);
        points.addLast(new Point(
                interval.count() / seconds, interval.quantileNanos(0.99) / 1e6, (errors - lastErrors) / seconds));
        while (points.size() > POINTS) {
            points.removeFirst();
        }
        last = current;
        lastErrors = errors;
        lastNanos = now;
    }

    /** The points kept, oldest first. */
    public synchronized List<Point> points() {
        return List.copyOf(points);
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
