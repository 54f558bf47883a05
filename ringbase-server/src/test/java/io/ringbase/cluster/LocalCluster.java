package io.ringbase.cluster;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.lsm.LsmOptions;
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
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A cluster of in-process {@link Node}s on loopback ports, each with its own data directory under
 * {@code root}, for black-box HTTP tests: nodes can be stopped (gracefully), restarted and wiped.
 */
public final class LocalCluster implements AutoCloseable {

    private final Path root;
    private final List<String> urls = new ArrayList<>();
    private final Node[] nodes;
    private final UnaryOperator<NodeConfig> customize;
    /**
     * The test's client. Replaced (the old one finishing what it has in flight) whenever a node stops,
     * so no pooled keep-alive connection to a stopped node is ever reused for its successor on the same
     * port: twice in this session a request to a just-restarted node went unanswered for 10 s while
     * every server thread was idle, which points at such a stale connection in the JDK client.
     */
    volatile HttpClient http = newClient();

    /** A simple answer. */
    public record Reply(int status, String body) {}

    public LocalCluster(Path root, int size) throws IOException {
        this(root, size, c -> c);
    }

    public LocalCluster(Path root, int size, UnaryOperator<NodeConfig> customize) throws IOException {
        this(root, size, customize, true);
    }

    /**
     * A cluster whose nodes may never agree (different secrets, names or lists): started without waiting
     * for every node to be a full replica its peers know.
     */
    public static LocalCluster unsettled(Path root, int size, UnaryOperator<NodeConfig> customize) throws IOException {
        return new LocalCluster(root, size, customize, false);
    }

    private LocalCluster(Path root, int size, UnaryOperator<NodeConfig> customize, boolean awaitSettled)
            throws IOException {
        this.root = root;
        this.customize = customize;
        this.nodes = new Node[size];
        for (int port : freePorts(size)) {
            urls.add("http://127.0.0.1:" + port);
        }
        for (int i = 0; i < size; i++) {
            start(i);
        }
        // as a client waits for /ready: a new node answers reads (and quorum writes' version queries)
        // once its peers have said it lost nothing, and they remember it once it has told them
        for (int i = 0; awaitSettled && i < size; i++) {
            Node n = nodes[i];
            await(
                    Duration.ofSeconds(30),
                    "node " + i + " to be a full replica its peers know",
                    () -> n.membership().map(LocalMembership::isSettled).orElse(true));
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

    /** The port node {@code i} listens on (also while it is stopped). */
    public int port(int i) {
        return URI.create(urls.get(i)).getPort();
    }

    /** Whether node {@code i} is running. */
    public boolean isRunning(int i) {
        return nodes[i] != null;
    }

    /** What node {@code i}'s engine stores for {@code key} (tombstones included), or null; the node must run. */
    public Entry stored(int i, String key) {
        try {
            return nodes[i].engine().get(key.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many keys starting with {@code prefix} node {@code i}'s engine stores (tombstones included); the node must run. */
    public int storedKeys(int i, String prefix) {
        byte[] start = prefix.getBytes(StandardCharsets.UTF_8);
        int n = 0;
        try (StorageEngine.CloseableIterator<Entry> it = nodes[i].engine().scan(start, null, false)) {
            while (it.hasNext()) {
                byte[] key = it.next().key();
                if (key.length < start.length || !Arrays.equals(key, 0, start.length, start, 0, start.length)) {
                    break;
                }
                n++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    /** The indices of the running nodes whose engine stores anything for {@code key}. */
    public List<Integer> holders(String key) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null && stored(i, key) != null) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * Waits until every running node sees every other running node as up (a read with
     * {@code ack} = number of running nodes, through each of them, is not a 504), as after a restart
     * the others mark the node up only when a probe ({@link io.ringbase.cluster.replication.Liveness})
     * or a request reaches it.
     */
    public void awaitAllUp(Duration deadline) {
        int running = 0;
        for (Node n : nodes) {
            running += n == null ? 0 : 1;
        }
        if (running != nodes.length) {
            throw new IllegalStateException("awaitAllUp needs every node running");
        }
        if (nodes[0].config().topology().replicationFactor() < nodes.length) {
            // no request reaches every node: ask each node's failure detector instead
            for (int i = 0; i < nodes.length; i++) {
                Node n = nodes[i];
                await(
                        deadline,
                        "node " + i + " to see all nodes up",
                        () -> n.coordinator().upReplicas().size() == nodes.length);
            }
            return;
        }
        for (int i = 0; i < nodes.length; i++) {
            int via = i;
            await(
                    deadline,
                    "node " + i + " to see all nodes up",
                    () -> get(via, "awaitAllUp-probe", "&ack=" + nodes.length).status() != 504);
        }
    }

    /** Polls {@code condition} every 20 ms until it holds; fails with {@code what} after {@code deadline}. */
    public static void await(Duration deadline, String what, java.util.function.BooleanSupplier condition) {
        try {
            Awaitility.await()
                    .atMost(deadline)
                    .pollInterval(Duration.ofMillis(20))
                    .alias(what)
                    .until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("gave up after " + deadline + " waiting for " + what, e);
        }
    }

    public NodeConfig config(int i) {
        Topology t = Topology.parse(urls, urls.get(i));
        LsmOptions storage = LsmOptions.defaults(dataDir(i)).withTombstoneGraceMs(10L * 24 * 3600 * 1000);
        HttpServerConfig http = new HttpServerConfig(
                "127.0.0.1", t.self().port(), 16 << 20, 8, 1024, HttpServerConfig.DEFAULT_IO_THREADS, true);
        return customize.apply(
                new NodeConfig(http, storage, t, 1000, null, io.ringbase.cluster.hint.HintOptions.defaults()));
    }

    /** A config customizer that sets the cluster's replication factor ({@code serve --replication-factor}). */
    public static UnaryOperator<NodeConfig> withReplicationFactor(int rf) {
        return c -> new NodeConfig(
                c.http(),
                c.storage(),
                new Topology(c.topology().nodes(), c.topology().self(), rf),
                c.replicaTimeoutMs(),
                c.clusterSecret(),
                c.hints(),
                c.clock(),
                c.metrics(),
                c.accessLog(),
                c.engine(),
                c.speculativeRetry(),
                c.time(),
                c.clusterName());
    }

    /** A config customizer that drops every hint (a 1-byte hint store), for tests that need a stale replica. */
    public static NodeConfig withoutHints(NodeConfig c) {
        return new NodeConfig(
                c.http(),
                c.storage(),
                c.topology(),
                c.replicaTimeoutMs(),
                c.clusterSecret(),
                c.hints().withMaxTotalBytes(1));
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
            HttpClient old = http;
            http = newClient();
            old.shutdown(); // requests other threads have in flight run to completion
        }
    }

    private static HttpClient newClient() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
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
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(url(via) + pathAndQuery)).timeout(Duration.ofSeconds(10));
        b.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(r.statusCode(), r.body());
        } catch (java.net.http.HttpTimeoutException e) {
            // A node that does not answer within 10 s is a bug worth a thread dump in the test log.
            StringBuilder dump = new StringBuilder("no answer from " + url(via) + pathAndQuery + "; threads:\n");
            Thread.getAllStackTraces().forEach((t, st) -> {
                dump.append('"')
                        .append(t.getName())
                        .append("\" ")
                        .append(t.getState())
                        .append('\n');
                for (StackTraceElement f : st) {
                    dump.append("    at ").append(f).append('\n');
                }
            });
            System.err.println(dump);
            throw new UncheckedIOException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code n} distinct loopback ports that were free a moment ago. */
    public static List<Integer> freePorts(int n) throws IOException {
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
