package io.ringbase.faults.cluster;

import io.ringbase.faults.net.NetworkLab;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The nodes of one run, one per namespace of a {@link NetworkLab}, each with its data under
 * {@code runDir/node-i}: the founding nodes ({@link #nodes()}, the {@code --cluster} list, which the clients
 * talk to) and, in an {@link Membership#ELASTIC} cluster, nodes that joined later ({@link #join}) until they
 * are {@link #remove}d.
 */
public final class NsCluster implements AutoCloseable {

    /**
     * Metadata port = HTTP port + this, on every node of an {@link Membership#ELASTIC} cluster ({@code serve
     * --metadata-port-offset}): 9080. Partitions cut it with the HTTP port, as they drop by address.
     */
    public static final int METADATA_PORT_OFFSET = 1000;

    /** Where the cluster's membership comes from. */
    public enum Membership {
        /** The {@code --cluster} list, fixed for the run. */
        STATIC,
        /**
         * The cluster metadata log, a Raft group of the founding nodes ({@code --metadata-port-offset}): nodes
         * can join and be decommissioned while the cluster serves.
         */
        ELASTIC
    }

    private final Membership membership;
    private final Path runDir;
    private final Path pidFile;
    private final List<String> extraFlags;
    private final List<NsNode> nodes = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    /** Nodes that joined and have not been removed, in join order. */
    private final List<NsNode> joined = new ArrayList<>();
    /** Every node this run started, founding, joined and removed: their exits and logs. */
    private final List<NsNode> everyNode = new ArrayList<>();

    /** A static cluster of {@code n} nodes ({@link Membership#STATIC}). */
    public NsCluster(int n, Path runDir, Path pidFile, List<String> extraFlags) {
        this(n, runDir, pidFile, extraFlags, Membership.STATIC);
    }

    /**
     * @param n          founding nodes, namespaces 0 to n - 1 of the lab
     * @param extraFlags serve flags every node gets
     * @param pidFile    where node pids are recorded ({@link #killLeftovers})
     */
    public NsCluster(int n, Path runDir, Path pidFile, List<String> extraFlags, Membership membership) {
        this.membership = membership;
        this.runDir = runDir;
        this.pidFile = pidFile;
        this.extraFlags = List.copyOf(extraFlags);
        for (int i = 0; i < n; i++) {
            urls.add(urlOf(i));
        }
        List<String> flags = new ArrayList<>(List.of("--cluster", String.join(",", urls)));
        flags.addAll(metadataFlags());
        for (int i = 0; i < n; i++) {
            nodes.add(new NsNode(i, urls.get(i), flags, runDir.resolve("node-" + i), pidFile, this.extraFlags));
        }
        everyNode.addAll(nodes);
    }

    private static String urlOf(int i) {
        return "http://" + NetworkLab.ip(i) + ":" + NsNode.PORT;
    }

    private List<String> metadataFlags() {
        return membership == Membership.ELASTIC
                ? List.of("--metadata-port-offset", Integer.toString(METADATA_PORT_OFFSET))
                : List.of();
    }

    public Membership membership() {
        return membership;
    }

    /**
     * Starts a new node, in a namespace of {@code lab} no node of this run has used, that joins the cluster
     * through founding node 0 ({@code serve --join}, an empty data directory), and waits for its ready line
     * (within {@link NsNode#READY_TIMEOUT_S}): it is JOINING then, and streams its keys in the background.
     *
     * @throws IllegalStateException if the cluster is {@link Membership#STATIC}
     * @throws java.util.concurrent.CompletionException if the node exits or is not ready in time
     */
    public NsNode join(NetworkLab lab) throws IOException {
        if (membership != Membership.ELASTIC) {
            throw new IllegalStateException("a node can join only an ELASTIC cluster");
        }
        int i = everyNode.size();
        while (lab.nodes() <= i) {
            lab.addNode();
        }
        Path dataDir = runDir.resolve("node-" + i);
        if (Files.exists(dataDir)) {
            throw new IllegalStateException("the data directory of joining node " + i + " exists: " + dataDir);
        }
        List<String> flags = new ArrayList<>(List.of("--join", urls.getFirst()));
        flags.addAll(metadataFlags());
        NsNode n = new NsNode(i, urlOf(i), flags, dataDir, pidFile, extraFlags);
        everyNode.add(n);
        joined.add(n);
        n.start(0).join();
        return n;
    }

    /** The nodes that joined and have not been {@link #remove}d, in join order. */
    public List<NsNode> joined() {
        return List.copyOf(joined);
    }

    /**
     * Stops a joined node (SIGTERM, SIGKILL after 30 s) and forgets it as a member; its exits and log stay in
     * {@link #everyNode()}.
     */
    public void remove(NsNode n) throws InterruptedException {
        if (!joined.contains(n)) {
            throw new IllegalArgumentException("n" + n.index() + " is not a joined node of this cluster");
        }
        n.stop();
        joined.remove(n);
    }

    /** Every node this run made: founding, joined, and removed. */
    public List<NsNode> everyNode() {
        return List.copyOf(everyNode);
    }

    public int size() {
        return nodes.size();
    }

    public NsNode node(int i) {
        return nodes.get(i);
    }

    public List<NsNode> nodes() {
        return nodes;
    }

    public String url(int i) {
        return urls.get(i);
    }

    /** Starts every founding node and waits until each has printed its ready line (each within {@link NsNode#READY_TIMEOUT_S}). */
    public void start() throws IOException {
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        for (NsNode n : nodes) {
            ready.add(n.start(0));
        }
        CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * SIGKILLs every pid in {@code pidFile} that is still a Ringbase node (its command line names
     * {@code io.ringbase.cli.Main}: a reused pid is left alone), then empties the file.
     */
    public static void killLeftovers(Path pidFile) throws IOException {
        if (!Files.exists(pidFile)) {
            return;
        }
        for (String line : Files.readAllLines(pidFile, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            long pid = Long.parseLong(line.strip());
            ProcessHandle.of(pid).ifPresent(h -> {
                String cmd = h.info().commandLine().orElse("");
                if (cmd.contains("io.ringbase.cli.Main")) {
                    io.ringbase.faults.net.Shell.tryRun("kill", "-CONT", Long.toString(pid));
                    h.destroyForcibly();
                    h.onExit().orTimeout(30, TimeUnit.SECONDS).join();
                }
            });
        }
        Files.delete(pidFile);
    }

    @Override
    public void close() {
        boolean interrupted = false;
        for (NsNode n : everyNode) {
            try {
                n.kill();
            } catch (InterruptedException e) { // it is killed; kill the others all the same
                interrupted = true;
            }
        }
        if (interrupted) { // kept: an interrupt must not be lost in try-with-resources
            Thread.currentThread().interrupt();
        }
    }
}
