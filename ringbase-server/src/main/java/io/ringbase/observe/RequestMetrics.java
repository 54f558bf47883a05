package io.ringbase.observe;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts HTTP requests by endpoint, method and status, and their latency by endpoint and method, for
 * {@code GET /metrics} and the status page. Made for the point-request path, which event loops serve
 * at 100,000 requests a second and more: every handle is resolved when this object is made (arrays
 * indexed by endpoint, method and status), so {@link #record} looks nothing up by name, allocates
 * nothing and adds to three {@link LongAdder}s. Thread-safe.
 *
 * <p>Endpoints are names the HTTP layer chooses, indexed by position; methods are {@link #METHODS}
 * (anything else counts as {@code OTHER}); statuses are {@link #STATUSES} (anything else counts as
 * {@code other}).
 */
public final class RequestMetrics {

    /** Methods counted apart; {@code OTHER} takes the rest. Index = position. */
    public static final List<String> METHODS = List.of("GET", "PUT", "DELETE", "POST", "OTHER");
    /** Index of {@code OTHER} in {@link #METHODS}. */
    public static final int OTHER_METHOD = METHODS.size() - 1;
    /** Statuses counted apart; any other is counted as the last, {@code other}. */
    static final int[] STATUSES = {200, 201, 202, 400, 401, 403, 404, 405, 408, 413, 417, 500, 503, 504, 507};

    private final List<String> endpoints;
    private final List<String> clientEndpoints;
    private final LongAdder[][][] requests; // [endpoint][method][status index]
    private final LatencyHistogram[][] latency; // [endpoint][method]
    private final long startNanos = System.nanoTime();
    private final ArrayDeque<Sample> samples = new ArrayDeque<>(); // guarded by this

    /**
     * @param endpoints       the endpoint names, by index (e.g. {@code entity}, {@code internal_batch})
     * @param clientEndpoints which of them clients call (their requests make {@link #recent}'s rate and p99)
     */
    public RequestMetrics(List<String> endpoints, List<String> clientEndpoints) {
        this.endpoints = List.copyOf(endpoints);
        this.clientEndpoints = List.copyOf(clientEndpoints);
        requests = new LongAdder[endpoints.size()][METHODS.size()][STATUSES.length + 1];
        latency = new LatencyHistogram[endpoints.size()][METHODS.size()];
        for (int e = 0; e < endpoints.size(); e++) {
            for (int m = 0; m < METHODS.size(); m++) {
                latency[e][m] = new LatencyHistogram();
                for (int s = 0; s <= STATUSES.length; s++) {
                    requests[e][m][s] = new LongAdder();
                }
            }
        }
    }

    /** The endpoint names, by index. */
    public List<String> endpoints() {
        return endpoints;
    }

    /**
     * Records one answered request.
     *
     * @param endpoint index into {@link #endpoints()}
     * @param method   index into {@link #METHODS}
     * @param status   the HTTP status answered
     * @param nanos    from the request's start (decoded, taken up) to its response written to the socket
     *                 (or, for a streamed body, finished)
     */
    public void record(int endpoint, int method, int status, long nanos) {
        requests[endpoint][method][statusIndex(status)].increment();
        latency[endpoint][method].record(nanos);
    }

    private static int statusIndex(int status) {
        for (int i = 0; i < STATUSES.length; i++) {
            if (STATUSES[i] == status) {
                return i;
            }
        }
        return STATUSES.length;
    }

    /** The label of status index {@code i}: the code, or {@code other}. */
    static String statusLabel(int i) {
        return i < STATUSES.length ? Integer.toString(STATUSES[i]) : "other";
    }

    /** Requests counted for one endpoint, method and status index. */
    long requests(int endpoint, int method, int statusIndex) {
        return requests[endpoint][method][statusIndex].sum();
    }

    /** The latency histogram of one endpoint and method. */
    LatencyHistogram latency(int endpoint, int method) {
        return latency[endpoint][method];
    }

    /** All client requests' latencies, summed over their endpoints and methods. */
    LatencyHistogram.Snapshot clientLatency() {
        LatencyHistogram.Snapshot all = LatencyHistogram.Snapshot.empty();
        for (String name : clientEndpoints) {
            int e = endpoints.indexOf(name);
            for (int m = 0; m < METHODS.size(); m++) {
                all = all.plus(latency[e][m].snapshot());
            }
        }
        return all;
    }

    /** Client requests answered with a 5xx status since start (500, 503, 504, 507 and other 5xx codes). */
    long clientErrors() {
        long n = 0;
        for (String name : clientEndpoints) {
            int e = endpoints.indexOf(name);
            for (int m = 0; m < METHODS.size(); m++) {
                for (int i = 0; i < STATUSES.length; i++) {
                    if (STATUSES[i] >= 500) {
                        n += requests[e][m][i].sum();
                    }
                }
            }
        }
        return n;
    }

    /**
     * Client requests over the last minute or so: their rate and 99th percentile latency, from the
     * difference between now and the oldest kept sample (samples are kept one per second at most, for
     * {@link #WINDOW_NANOS}, as callers ask; before the first sample is a second old, since start).
     */
    public synchronized Recent recent() {
        long now = System.nanoTime();
        LatencyHistogram.Snapshot current = clientLatency();
        Sample newest = samples.peekLast();
        if (newest == null || now - newest.nanos >= 1_000_000_000L) {
            samples.addLast(new Sample(now, current));
        }
        while (samples.size() > 1 && now - samples.peekFirst().nanos > WINDOW_NANOS) {
            samples.removeFirst();
        }
        Sample base = samples.peekFirst();
        if (base.nanos == now || now - base.nanos < 1_000_000_000L) {
            base = new Sample(startNanos, LatencyHistogram.Snapshot.empty());
        }
        LatencyHistogram.Snapshot window = current.minus(base.snapshot);
        double seconds = Math.max(1e-3, (now - base.nanos) / 1e9);
        return new Recent(window.count() / seconds, window.quantileNanos(0.99) / 1e6, seconds);
    }

    /** How far back {@link #recent()} looks at most, ns (60 s). */
    static final long WINDOW_NANOS = 60_000_000_000L;

    private record Sample(long nanos, LatencyHistogram.Snapshot snapshot) {}

    /**
     * Client requests over a recent window.
     *
     * @param perSecond requests answered per second
     * @param p99Ms     99th percentile latency, ms (interpolated within its bucket; 0 without requests)
     * @param seconds   the window's length, s
     */
    public record Recent(double perSecond, double p99Ms, double seconds) {}
}
