package io.ringbase.cluster.elastic;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.TlsOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Nodes of a cluster whose membership comes from the metadata log, in this process: founding nodes started
 * from a {@code --cluster} list with {@code --metadata-port-offset}, and nodes that join through the first.
 */
public final class ElasticCluster implements AutoCloseable {

    /** Metadata port = HTTP port + this, on every founding node. */
    static final int OFFSET = 7;

    private final Path root;
    private final int replicationFactor;
    private final List<String> founders = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();
    private final java.util.Map<Integer, Integer> replaces = new java.util.HashMap<>();
    private final java.util.Map<Integer, Integer> joinThrough = new java.util.HashMap<>();
    private final @Nullable TestCertificates ca;
    private final String scheme;
    private final HttpClient http;

    public ElasticCluster(Path root, int founding, int replicationFactor) throws IOException {
        this(root, founding, replicationFactor, null);
    }

    /**
     * As {@link #ElasticCluster(Path, int, int)}; with {@code ca}, the nodes' URLs are {@code https://} and each
     * node has a certificate of {@code ca} (for 127.0.0.1): node-to-node traffic and the metadata group's Raft
     * port speak mutual TLS, and this cluster's own requests go over TLS without a client certificate.
     */
    public ElasticCluster(Path root, int founding, int replicationFactor, @Nullable TestCertificates ca)
            throws IOException {
        this.root = root;
        this.replicationFactor = replicationFactor;
        this.ca = ca;
        this.scheme = ca == null ? "http://" : "https://";
        HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
        if (ca != null) {
            ca.writeCa(root.resolve("ca.pem"));
            client.sslContext(ca.clientContext());
        }
        this.http = client.build();
        for (int port : portsWithMetadataPort(founding)) {
            founders.add(scheme + "127.0.0.1:" + port);
        }
        urls.addAll(founders);
        for (int i = 0; i < founding; i++) {
            nodes.add(null);
        }
        for (int i = 0; i < founding; i++) {
            nodes.set(i, Node.start(config(i)));
        }
        for (int i = 0; i < founding; i++) {
            awaitState(i, MemberState.NORMAL);
        }
    }

    /** {@code n} ports p with p and p + {@link #OFFSET} free a moment ago. */
    private static List<Integer> portsWithMetadataPort(int n) throws IOException {
        List<Integer> out = new ArrayList<>();
        for (int attempt = 0; out.size() < n && attempt < 1000; attempt++) {
            int p = LocalCluster.freePorts(1).getFirst();
            if (p + OFFSET > 65535 || out.contains(p) || out.contains(p + OFFSET) || out.contains(p - OFFSET)) {
                continue;
            }
            try {
                new ServerSocket(p + OFFSET).close();
                out.add(p);
            } catch (IOException taken) {
                // try another
            }
        }
        if (out.size() < n) {
            throw new IOException("no " + n + " port pairs free");
        }
        return out;
    }

    NodeConfig config(int i) throws IOException {
        String url = urls.get(i);
        boolean founding = i < founders.size() && !replaces.containsKey(i);
        Topology t = founding ? Topology.parse(founders, url, replicationFactor) : Topology.parse(List.of(url), url);
        LsmOptions storage =
                LsmOptions.defaults(root.resolve("node-" + i)).withTombstoneGraceMs(10L * 24 * 3600 * 1000);
        HttpServerConfig httpConfig = new HttpServerConfig(
                "127.0.0.1", t.self().port(), 16 << 20, 8, 1024, HttpServerConfig.DEFAULT_IO_THREADS, true);
        if (ca != null) {
            Path cert = root.resolve("node-" + i + ".pem");
            Path key = root.resolve("node-" + i + ".key");
            if (!java.nio.file.Files.exists(cert)) {
                TestCertificates.write(ca.issue("node-" + i), cert, key);
            }
            httpConfig = httpConfig.withTls(new TlsOptions(cert, key, root.resolve("ca.pem"), 1_000, true));
        }
        return new NodeConfig(httpConfig, storage, t, 1000, null, HintOptions.defaults())
                .withElastic(new ElasticOptions(
                        OFFSET,
                        founding ? null : joinVia(i),
                        replaces.getOrDefault(i, 0),
                        ElasticOptions.DEFAULT_STREAM_BYTES_PER_SECOND));
    }

    /** The URL of the first running node other than {@code i}, which a joining node {@code i} joins through. */
    private String joinVia(int i) {
        Integer via = joinThrough.get(i);
        if (via != null) {
            return urls.get(via);
        }
        for (int j = 0; j < nodes.size(); j++) {
            if (j != i && nodes.get(j) != null) {
                return urls.get(j);
            }
        }
        return founders.getFirst();
    }

    /** Starts a new node that joins through the first running node; its index. */
    public int join() throws IOException {
        int port = LocalCluster.freePorts(1).getFirst();
        urls.add(scheme + "127.0.0.1:" + port);
        int i = urls.size() - 1;
        nodes.add(Node.start(config(i)));
        return i;
    }

    /** Starts a new node that joins through node {@code via}; its index. */
    public int joinThrough(int via) throws IOException {
        int port = LocalCluster.freePorts(1).getFirst();
        urls.add(scheme + "127.0.0.1:" + port);
        int i = urls.size() - 1;
        joinThrough.put(i, via);
        nodes.add(Node.start(config(i)));
        return i;
    }

    /** Starts a new node, at a new URL, that replaces node id {@code replaced}; its index. */
    public int joinReplacing(int replaced) throws IOException {
        int port = LocalCluster.freePorts(1).getFirst();
        urls.add(scheme + "127.0.0.1:" + port);
        int i = urls.size() - 1;
        replaces.put(i, replaced);
        nodes.add(null);
        nodes.set(i, Node.start(config(i)));
        return i;
    }

    /** Restarts node {@code i} (stopped before). */
    void start(int i) throws IOException {
        nodes.set(i, Node.start(config(i)));
    }

    /** Restarts node {@code i} (stopped, its data directory wiped) as the replacement of node id {@code replaced}. */
    void startReplacing(int i, int replaced) throws IOException {
        replaces.put(i, replaced);
        start(i);
    }

    /** Deletes node {@code i}'s data directory (stopped before). */
    void wipe(int i) throws IOException {
        Path dir = root.resolve("node-" + i);
        if (java.nio.file.Files.exists(dir)) {
            try (var paths = java.nio.file.Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.delete(p);
                }
            }
        }
    }

    public void stop(int i) throws IOException {
        Node n = nodes.get(i);
        nodes.set(i, null);
        if (n != null) {
            n.close();
        }
    }

    public Node node(int i) {
        return nodes.get(i);
    }

    public int size() {
        return nodes.size();
    }

    public String url(int i) {
        return urls.get(i);
    }

    public ElasticMembership elastic(int i) {
        return nodes.get(i).elastic().orElseThrow();
    }

    public void awaitState(int i, MemberState state) {
        LocalCluster.await(
                Duration.ofSeconds(60),
                "node " + i + " to be " + state,
                () -> nodes.get(i)
                        .elastic()
                        .map(m -> m.selfState() == state && m.metadata().isInitialized())
                        .orElse(false));
    }

    /** Waits until every running node is a full replica that every peer remembers (hello answered). */
    public void awaitSettled() {
        LocalCluster.await(Duration.ofSeconds(30), "every running node settled", () -> {
            for (Node n : nodes) {
                if (n != null && !n.membership().orElseThrow().isSettled()) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Waits until every running node is at the same epoch, the newest. */
    public void awaitSameEpoch() {
        LocalCluster.await(Duration.ofSeconds(30), "every node at the same epoch", () -> {
            long epoch = -1;
            for (Node n : nodes) {
                if (n == null) {
                    continue;
                }
                long e = n.elastic().orElseThrow().epoch();
                if (epoch >= 0 && e != epoch) {
                    return false;
                }
                epoch = e;
            }
            return true;
        });
    }

    /** Entries (tombstones included) in node {@code i}'s engine. */
    public long storedEntries(int i) throws IOException {
        long n = 0;
        try (StorageEngine.CloseableIterator<Entry> it = nodes.get(i).engine().scan(new byte[0], null, false)) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    public LocalCluster.Reply send(int via, String method, String pathAndQuery, String body) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(urls.get(via) + pathAndQuery))
                            .timeout(Duration.ofSeconds(20))
                            .method(method, HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new LocalCluster.Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            return new LocalCluster.Reply(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new LocalCluster.Reply(-1, e.toString());
        }
    }

    public LocalCluster.Reply put(int via, String key, String value) {
        return send(via, "PUT", "/v0/entity?id=" + key, value);
    }

    /**
     * PUTs keys {@code prefix + k} with value {@code "v" + k} for k in [0, keys), each acknowledged by all its
     * replicas ({@code ack=from=rf}), so that counts of stored entries taken right after are exact: a default
     * quorum write answers before its last replica has applied it. Fails on any other status than 201.
     */
    public void writeToAllReplicas(String prefix, int keys) {
        int rf = replicationFactor;
        for (int k = 0; k < keys; k++) {
            LocalCluster.Reply r =
                    send(k % size(), "PUT", "/v0/entity?id=" + prefix + k + "&ack=" + rf + "&from=" + rf, "v" + k);
            if (r.status() != 201) {
                throw new AssertionError("put " + prefix + k + ": " + r.status() + " " + r.body());
            }
        }
    }

    /** The replication factor the cluster was founded with. */
    public int replicationFactor() {
        return replicationFactor;
    }

    public LocalCluster.Reply get(int via, String key) {
        return send(via, "GET", "/v0/entity?id=" + key, "");
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            try {
                stop(i);
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        http.close();
        if (first != null) {
            throw first;
        }
    }
}
