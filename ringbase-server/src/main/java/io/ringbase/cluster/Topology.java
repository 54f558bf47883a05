package io.ringbase.cluster;

import io.ringbase.clock.HybridLogicalClock;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The static membership of a cluster: every node is started with the same ordered list of URLs and
 * its own URL ({@code --self}), and the same replication factor. Immutable.
 *
 * <p>The replication factor (Dynamo's N, Cassandra's {@code replication_factor}) is how many nodes hold
 * each key: the first {@code replicationFactor} of its rendezvous order ({@code ring.Ring}). It is the
 * largest {@code from} a request may ask for and its default. A cluster started from a list alone has
 * replication factor = the list's size, so every node holds every key (the course's semantics).
 *
 * @param nodes             all nodes, by ascending {@link NodeId#index()}: in a static cluster the index is the
 *                          position in the {@code --cluster} list; in one whose membership comes from the
 *                          metadata log it is the node id less one, and ids of nodes that left leave gaps
 * @param self              this node, one of {@code nodes}
 * @param replicationFactor copies of each key, {@code 1..nodes.size()}; every node of a cluster must use
 *                          the same value, or they disagree on where keys live
 */
public record Topology(List<NodeId> nodes, NodeId self, int replicationFactor) {

    /** The scheme of a cluster whose nodes call each other in plain HTTP. */
    public static final String HTTP = "http";

    /** The scheme of a cluster whose nodes call each other over mutual TLS. */
    public static final String HTTPS = "https";

    /**
     * @throws IllegalArgumentException if {@code nodes} is empty or over 64, not in ascending index order or an
     *         index is 64 or more, does not
     *         hold {@code self}, or {@code replicationFactor} is outside {@code 1..nodes.size()}
     */
    public Topology {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        if (nodes.size() > HybridLogicalClock.MAX_NODES) {
            throw new IllegalArgumentException("a cluster has at most " + HybridLogicalClock.MAX_NODES
                    + " nodes (versions carry the node index in 6 bits), got " + nodes.size());
        }
        for (int i = 0; i < nodes.size(); i++) {
            int index = nodes.get(i).index();
            if ((i > 0 && index <= nodes.get(i - 1).index()) || index >= HybridLogicalClock.MAX_NODES) {
                throw new IllegalArgumentException("node " + nodes.get(i) + " has index " + index
                        + ": indexes must ascend and stay below " + HybridLogicalClock.MAX_NODES);
            }
        }
        if (!nodes.contains(self)) {
            throw new IllegalArgumentException("self " + self + " is not in the cluster " + nodes);
        }
        if (replicationFactor < 1 || replicationFactor > nodes.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " must be between 1 and "
                    + nodes.size() + " (the number of nodes)");
        }
    }

    /** A topology whose replication factor is the number of nodes: every node holds every key. */
    public Topology(List<NodeId> nodes, NodeId self) {
        this(nodes, self, nodes.size());
    }

    /** A one-node cluster: the node alone. */
    public static Topology single(String host, int port) {
        NodeId me = new NodeId(0, host, port);
        return new Topology(List.of(me), me);
    }

    /**
     * Parses the {@code --cluster} list and {@code --self}, with replication factor = the list's size.
     *
     * @throws IllegalArgumentException as {@link #parse(List, String, int)}
     */
    public static Topology parse(List<String> urls, String selfUrl) {
        return parse(urls, selfUrl, urls.size());
    }

    /**
     * Parses the {@code --cluster} list and {@code --self}.
     *
     * @param urls    {@code http://host:port} or {@code https://host:port} URLs ({@link #parseUrl}); duplicates
     *                are an error
     * @param selfUrl this node's URL, which must be in {@code urls}
     * @param replicationFactor copies of each key, {@code 1..urls.size()}
     * @throws IllegalArgumentException with a message fit for the command line if a URL is malformed,
     *         repeated, {@code selfUrl} is not in the list, or the replication factor is out of bounds
     */
    public static Topology parse(List<String> urls, String selfUrl, int replicationFactor) {
        Set<URI> seen = new LinkedHashSet<>();
        List<NodeId> nodes = new ArrayList<>();
        for (String url : urls) {
            URI uri = parseUrl(url);
            if (!seen.add(uri)) {
                throw new IllegalArgumentException("'" + url + "' appears twice in the cluster list");
            }
            nodes.add(new NodeId(nodes.size(), uri.getHost(), uri.getPort()));
        }
        URI me = parseUrl(selfUrl);
        for (NodeId n : nodes) {
            if (n.uri().equals(me)) {
                return new Topology(nodes, n, replicationFactor);
            }
        }
        throw new IllegalArgumentException("--self " + me + " is not in the cluster list " + seen);
    }

    /**
     * Parses {@code http://host:port} or {@code https://host:port} (a trailing slash is allowed) into the
     * node's identity, always written {@code http://host:port} ({@link NodeId#toString()}): the scheme says
     * how the node is called ({@link #scheme}), not who it is, so state kept by URL (hints, the peers a node
     * remembers) stays the node's when a cluster moves to TLS.
     */
    public static URI parseUrl(String url) {
        try {
            URI uri = URI.create(url.trim());
            if (!(HTTP.equals(uri.getScheme()) || HTTPS.equals(uri.getScheme()))
                    || uri.getHost() == null
                    || uri.getPort() <= 0
                    || (uri.getPath() != null
                            && !uri.getPath().isEmpty()
                            && !uri.getPath().equals("/"))) {
                throw new IllegalArgumentException();
            }
            return URI.create("http://" + uri.getHost() + ":" + uri.getPort());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "'" + url + "' is not a URL of the form http://host:port or https://host:port");
        }
    }

    /**
     * The scheme every URL of a cluster list (and {@code --self}) is written with: {@code "https"} when its
     * nodes call each other over TLS, {@code "http"} otherwise.
     *
     * @param urls URLs as {@link #parseUrl} takes them, at least one
     * @throws IllegalArgumentException if they do not all use the same scheme (naming one of each), or one
     *         is not such a URL
     */
    public static String scheme(List<String> urls) {
        String first = null;
        String firstUrl = null;
        for (String url : urls) {
            var _ = parseUrl(url);
            String scheme = URI.create(url.trim()).getScheme();
            if (first == null) {
                first = scheme;
                firstUrl = url;
            } else if (!first.equals(scheme)) {
                throw new IllegalArgumentException("the URLs of a cluster all use http:// or all https://, but '"
                        + firstUrl + "' and '" + url + "' differ: a cluster calls all its nodes the same way");
            }
        }
        if (first == null) {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        return first;
    }

    /**
     * The URL by which a node calls a peer over TLS: the peer's identity ({@code http://host:port}, as nodes,
     * hints and the metadata log name it) with the scheme {@code https://}; any other URL as it is.
     */
    public static String overTls(String url) {
        String plain = HTTP + "://";
        return url.startsWith(plain) ? HTTPS + "://" + url.substring(plain.length()) : url;
    }

    public int size() {
        return nodes.size();
    }

    /**
     * Whether this node is alone: a cluster of one, replication factor 1. The one rule that tells a node
     * alone from a member of a larger cluster.
     */
    public boolean isAlone() {
        return nodes.size() == 1;
    }

    /**
     * The node with this index.
     *
     * @throws IllegalArgumentException if no node has it
     */
    public NodeId node(int index) {
        if (index < nodes.size() && nodes.get(index).index() == index) {
            return nodes.get(index); // a static list: the index is the position
        }
        for (NodeId n : nodes) {
            if (n.index() == index) {
                return n;
            }
        }
        throw new IllegalArgumentException("no node has index " + index + " in " + nodes);
    }

    /**
     * The node whose URL ({@link NodeId#toString()}, {@code http://host:port}) is {@code url}, or null if
     * none is: node identity for state that must survive a reordered {@code --cluster} list (hints).
     */
    public NodeId byUrl(String url) {
        for (NodeId n : nodes) {
            if (n.toString().equals(url)) {
                return n;
            }
        }
        return null;
    }

    /** The default {@code from} of a request: the replication factor. */
    public int defaultFrom() {
        return replicationFactor;
    }

    /** The default {@code ack} for {@code from} replicas: a majority, {@code from / 2 + 1}. */
    public static int quorum(int from) {
        return from / 2 + 1;
    }
}
