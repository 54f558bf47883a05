package io.ringbase.cluster;

import io.ringbase.http.HttpServerConfig;
import io.ringbase.server.Node;
import io.ringbase.storage.LsmOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A cluster of in-process {@link Node}s on loopback ports, each with its own data directory under
 * {@code root}, for black-box HTTP tests: nodes can be stopped (gracefully), restarted and wiped.
 */
public final class LocalCluster implements AutoCloseable {

    private final Path root;
    private final List<String> urls = new ArrayList<>();
    private final Node[] nodes;
    private final UnaryOperator<Node.Config> customize;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** A simple answer. */
    public record Reply(int status, String body) {
    }

    public LocalCluster(Path root, int size) throws IOException {
        this(root, size, c -> c);
    }

    public LocalCluster(Path root, int size, UnaryOperator<Node.Config> customize) throws IOException {
        this.root = root;
        this.customize = customize;
        this.nodes = new Node[size];
        for (int port : freePorts(size)) {
            urls.add("http://127.0.0.1:" + port);
        }
        for (int i = 0; i < size; i++) {
            start(i);
        }
    }

    public int size() {
        return nodes.length;
    }

    public Path dataDir(int i) {
        return root.resolve("node-" + i);
    }

    public String url(int i) {
        return urls.get(i);
    }

    public Node node(int i) {
        return nodes[i];
    }

    public Node.Config config(int i) {
        Topology t = Topology.parse(urls, urls.get(i));
        LsmOptions storage = LsmOptions.defaults(dataDir(i)).withTombstoneGraceMs(10L * 24 * 3600 * 1000);
        HttpServerConfig http = new HttpServerConfig("127.0.0.1", t.self().port(), 16 << 20, 8, 1024,
                HttpServerConfig.DEFAULT_IO_THREADS);
        return customize.apply(new Node.Config(http, storage, t, 1000, null, io.ringbase.cluster.hint.HintOptions.defaults()));
    }

    /** Starts (or restarts) node {@code i}. */
    public void start(int i) throws IOException {
        if (nodes[i] != null) {
            throw new IllegalStateException("node " + i + " is running");
        }
        nodes[i] = Node.start(config(i));
    }

    /** Stops node {@code i} gracefully (flush, close). */
    public void stop(int i) throws IOException {
        Node n = nodes[i];
        nodes[i] = null;
        if (n != null) {
            n.close();
        }
    }

    /** Deletes node {@code i}'s data directory; the node must be stopped. */
    public void wipe(int i) throws IOException {
        if (nodes[i] != null) {
            throw new IllegalStateException("stop node " + i + " first");
        }
        Path dir = dataDir(i);
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    public Reply put(int via, String key, String value, String params) {
        return send(via, "PUT", "/v0/entity?id=" + key + params, value);
    }

    public Reply put(int via, String key, String value) {
        return put(via, key, value, "");
    }

    public Reply get(int via, String key, String params) {
        return send(via, "GET", "/v0/entity?id=" + key + params, null);
    }

    public Reply get(int via, String key) {
        return get(via, key, "");
    }

    public Reply delete(int via, String key, String params) {
        return send(via, "DELETE", "/v0/entity?id=" + key + params, null);
    }

    public Reply delete(int via, String key) {
        return delete(via, key, "");
    }

    /** Any request; {@code body} null for none. */
    public Reply send(int via, String method, String pathAndQuery, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(via) + pathAndQuery)).timeout(Duration.ofSeconds(10));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<Integer> freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0);
                sockets.add(s);
                ports.add(s.getLocalPort());
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (int i = 0; i < nodes.length; i++) {
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
