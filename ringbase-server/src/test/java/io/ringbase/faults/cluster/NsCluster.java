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
 * {@code runDir/node-i}.
 */
public final class NsCluster implements AutoCloseable {

    private final List<NsNode> nodes = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();

    /**
     * @param extraFlags serve flags every node gets
     * @param pidFile    where node pids are recorded ({@link #killLeftovers})
     */
    public NsCluster(int n, Path runDir, Path pidFile, List<String> extraFlags) {
        for (int i = 0; i < n; i++) {
            urls.add("http://" + NetworkLab.ip(i) + ":" + NsNode.PORT);
        }
        for (int i = 0; i < n; i++) {
            nodes.add(new NsNode(i, List.copyOf(urls), runDir.resolve("node-" + i), pidFile, extraFlags));
        }
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

    /** Starts every node and waits until each has printed its ready line (each within {@link NsNode#READY_TIMEOUT_S}). */
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
        for (NsNode n : nodes) {
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
