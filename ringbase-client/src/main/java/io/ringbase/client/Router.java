package io.ringbase.client;

import java.net.URI;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Chooses the node a {@link RingbaseClient} request goes to: with {@link Routing#REPLICA} and a known
 * placement, a replica of the request's key (the first one not marked down, a retry the next one); else the
 * given nodes in turn. A node that refused a connection is marked down for a while and skipped. Thread-safe
 * and lock-free.
 */
final class Router {

    private final List<URI> nodes;
    private final Routing routing;
    private final int from; // a request's from, 0 for the replication factor
    private final long downForNanos;
    private final AtomicInteger next = new AtomicInteger();
    private final ConcurrentHashMap<URI, Long> downUntil = new ConcurrentHashMap<>(); // System.nanoTime()
    private final AtomicReference<ClusterRing> ring = new AtomicReference<>();

    /**
     * @param nodes        the nodes given to the client, {@code http://host:port} without a path
     * @param from         the {@code from} of point requests, 0 for the cluster's replication factor
     * @param downForNanos how long a node that refused a connection is skipped, ns
     */
    Router(List<URI> nodes, Routing routing, int from, long downForNanos) {
        this.nodes = List.copyOf(nodes);
        this.routing = routing;
        this.from = from;
        this.downForNanos = downForNanos;
    }

    /** How requests are routed. */
    Routing routing() {
        return routing;
    }

    /** The placement requests are routed by now, or {@code null} while none is known. */
    ClusterRing ring() {
        return ring.get();
    }

    /**
     * Takes {@code fresh} as the placement unless the one held is of a later epoch (a node that has not yet
     * caught up answered).
     *
     * @return whether it was taken
     */
    boolean offer(ClusterRing fresh) {
        while (true) {
            ClusterRing held = ring.get();
            if (held != null && held.epoch() > fresh.epoch()) {
                return false;
            }
            if (ring.compareAndSet(held, fresh)) {
                return true;
            }
        }
    }

    /**
     * The node for attempt {@code attempt} (from 1) of a request on {@code key} ({@code null}: a request
     * without a key, such as a scan): a replica of the key when routing by replica and a placement is known,
     * the {@code attempt}-th one not marked down; when every replica is marked down, or otherwise, the next
     * given node in turn that is not marked down.
     */
    URI pick(byte[] key, int attempt) {
        ClusterRing r = ring.get();
        // a ring of one node is a node alone, whose URL may be a placeholder: nothing to choose anyway
        if (routing == Routing.REPLICA && key != null && r != null && r.size() > 1) {
            int count = Math.min(from > 0 ? from : r.replicationFactor(), r.size());
            List<URI> replicas = r.replicas(key, count);
            long now = System.nanoTime();
            int up = 0;
            for (URI u : replicas) {
                up += isUp(u, now) ? 1 : 0;
            }
            if (up > 0) {
                int skip = (attempt - 1) % up; // a retry goes to the next replica up
                for (URI u : replicas) {
                    if (isUp(u, now) && skip-- == 0) {
                        return u;
                    }
                }
            }
        }
        return anyNode();
    }

    /** The next given node in turn that is not marked down; the next in turn if all are. */
    URI anyNode() {
        int n = nodes.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        long now = System.nanoTime();
        for (int i = 0; i < n; i++) {
            URI node = nodes.get((start + i) % n);
            if (isUp(node, now)) {
                return node;
            }
        }
        return nodes.get(start);
    }

    /** Skips {@code node} for the client's {@code downFor}: it refused a connection. */
    void markDown(URI node) {
        downUntil.put(node, System.nanoTime() + downForNanos);
    }

    private boolean isUp(URI node, long now) {
        Long until = downUntil.get(node);
        return until == null || now - until >= 0;
    }
}
