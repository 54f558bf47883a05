package io.ringbase.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a {@link Router}'s placement current for {@link Routing#REPLICA}: fetches {@code GET /v0/ring} once
 * when the client is built, then on a timer and after failures, and offers each placement it gets to the
 * router (which keeps the highest epoch). A placement that cannot be fetched or parsed changes nothing:
 * requests then go to the given nodes in turn, or by the last placement known. Thread-safe; one daemon thread
 * for the timer, fetches on the {@link HttpClient}'s threads.
 */
final class PlacementFetcher implements AutoCloseable {

    private static final System.Logger log = System.getLogger(RingbaseClient.class.getName());

    /** The least time between two placement fetches that failures trigger, ns. */
    private static final long MIN_TRIGGERED_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final HttpClient http;
    private final List<URI> nodes;
    private final Router router;
    private final String authorization; // null for none
    private final Duration requestTimeout;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final AtomicLong lastTriggeredNanos = new AtomicLong(System.nanoTime() - MIN_TRIGGERED_REFRESH_NANOS);

    private PlacementFetcher(
            HttpClient http, List<URI> nodes, Router router, String authorization, Duration requestTimeout) {
        this.http = http;
        this.nodes = nodes;
        this.router = router;
        this.authorization = authorization;
        this.requestTimeout = requestTimeout;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ringbase-client-ring");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Fetches the placement from the given nodes in turn until one gives it, then every {@code period}.
     *
     * @param authorization the {@code Authorization} header's value, or {@code null}
     */
    static PlacementFetcher start(
            HttpClient http,
            List<URI> nodes,
            Router router,
            String authorization,
            Duration requestTimeout,
            Duration period) {
        PlacementFetcher f = new PlacementFetcher(http, nodes, router, authorization, requestTimeout);
        f.fetchAtStart();
        long p = period.toNanos();
        var _ = f.timer.scheduleWithFixedDelay(f::refresh, p, p, TimeUnit.NANOSECONDS);
        return f;
    }

    /** Stops the timer. */
    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** The target of {@code GET /v0/ring} in the text form this client parses. */
    private static final String RING = "/v0/ring?format=text";

    /** How long building a client waits for each node's placement at most (the request timeout if shorter). */
    private static final Duration START_FETCH_TIMEOUT = Duration.ofSeconds(2);

    /**
     * Fetches the placement once before the first request, from the given nodes in turn, each within the
     * connect timeout and {@link #START_FETCH_TIMEOUT}; without one (no node answered), requests go to the given
     * nodes in turn until the timer's next fetch succeeds.
     */
    private void fetchAtStart() {
        String last = "";
        for (URI node : nodes) {
            try {
                HttpResponse<String> r = http.send(
                        ringRequest(
                                node,
                                requestTimeout.compareTo(START_FETCH_TIMEOUT) < 0
                                        ? requestTimeout
                                        : START_FETCH_TIMEOUT),
                        HttpResponse.BodyHandlers.ofString());
                if (takeRing(node, r)) {
                    return;
                }
                last = node + " answered " + r.statusCode() + " " + r.body().strip();
            } catch (IOException e) {
                last = node + ": " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.log(
                System.Logger.Level.WARNING,
                "no node of " + nodes + " gave the cluster's placement (GET " + RING + "; last: " + last
                        + "); requests go to these nodes in turn until one does");
    }

    /** Fetches the placement again now, from one node, unless a fetch is in flight. */
    private void refresh() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        URI node = router.anyNode();
        var _ = http.sendAsync(ringRequest(node, requestTimeout), HttpResponse.BodyHandlers.ofString())
                .whenComplete((r, failure) -> {
                    try {
                        if (failure != null) {
                            log.log(System.Logger.Level.DEBUG, "placement not fetched from " + node, failure);
                        } else {
                            takeRing(node, r);
                        }
                    } finally {
                        refreshing.set(false);
                    }
                });
    }

    /** A node failed to answer, so the placement may have changed: fetch it again, at most once a second. */
    void failureSeen() {
        long last = lastTriggeredNanos.get();
        long now = System.nanoTime();
        if (now - last >= MIN_TRIGGERED_REFRESH_NANOS && lastTriggeredNanos.compareAndSet(last, now)) {
            refresh();
        }
    }

    private HttpRequest ringRequest(URI node, Duration timeout) {
        HttpRequest.Builder rb = HttpRequest.newBuilder(node.resolve(RING)).timeout(timeout);
        if (authorization != null) {
            rb.header("Authorization", authorization);
        }
        return rb.GET().build();
    }

    /** Takes the placement {@code node} answered; whether it was one (a 200 this client can parse). */
    private boolean takeRing(URI node, HttpResponse<String> r) {
        if (r.statusCode() != 200) {
            log.log(
                    System.Logger.Level.DEBUG,
                    "GET " + RING + " on " + node + " answered " + r.statusCode() + ": "
                            + r.body().strip());
            return false;
        }
        try {
            router.offer(ClusterRing.parse(r.body()));
            return true;
        } catch (IllegalArgumentException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    "the placement " + node + " gave cannot be used (requests go to any node): " + e.getMessage());
            return false;
        }
    }
}
