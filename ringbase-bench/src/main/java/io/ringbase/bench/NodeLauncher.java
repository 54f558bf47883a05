package io.ringbase.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Starts fresh local nodes with {@code bin/ringbase serve} (one, or three as a cluster with {@code --cluster}
 * and {@code --self}), each pinned to one CPU with {@code taskset}, on free loopback ports with fresh data
 * directories, each writing a GC log ({@link GcLog}, {@code node<N>-gc.log}) through {@code RINGBASE_JAVA_OPTS}
 * and its stderr, the server log, to {@code node<N>.log}, both in the report directory; waits for each node's
 * ready line and stops them with SIGTERM.
 */
public final class NodeLauncher {

    /** How long a node may take to print its ready line, in seconds. */
    static final int READY_TIMEOUT_S = 120;

    private NodeLauncher() {}

    /**
     * The nodes under test.
     *
     * @param urls      base URLs, e.g. {@code http://127.0.0.1:41234}
     * @param processes the local node processes (their pids are the JVMs' pids: taskset and the launcher exec),
     *                  empty for a node given by URL
     * @param logs      each local node's stderr log
     * @param gcLogs    each local node's GC log
     */
    public record Target(List<URI> urls, List<Process> processes, List<Path> logs, List<Path> gcLogs)
            implements AutoCloseable {

        /** A running node given by URL: nothing to start, stop, profile or measure. */
        public static Target remote(URI url) {
            return new Target(List.of(url), List.of(), List.of(), List.of());
        }

        /** True when the nodes were started here (and so can be profiled). */
        public boolean local() {
            return !processes.isEmpty();
        }

        /** Stops every local node with SIGTERM, waiting up to 60 s each, then SIGKILL; returns exit codes. */
        public List<Integer> stop() throws InterruptedException {
            List<Integer> codes = new ArrayList<>();
            for (Process p : processes) {
                p.destroy();
            }
            for (Process p : processes) {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor();
                }
                codes.add(p.exitValue());
            }
            return codes;
        }

        @Override
        public void close() {
            for (Process p : processes) {
                if (p.isAlive()) {
                    try {
                        stop();
                    } catch (InterruptedException e) { // no time to wait: kill them, and keep the interrupt
                        processes.forEach(Process::destroyForcibly);
                        Thread.currentThread().interrupt();
                    }
                    return;
                }
            }
        }
    }

    /** True when {@code taskset} is on the PATH. */
    public static boolean hasTaskset() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "taskset"))) {
                return true;
            }
        }
        return false;
    }

    /** The repository (where {@code bin/ringbase} is): {@code -Dringbase.home}, else the working directory. */
    public static Path home() {
        return Path.of(System.getProperty("ringbase.home", "."))
                .toAbsolutePath()
                .normalize();
    }

    /**
     * Starts {@code count} fresh nodes (1, or 3 as a cluster) with their data under {@code workDir}, their
     * logs in {@code logDir}.
     *
     * @param cpu      CPU to pin the nodes to, or -1 for none
     * @param logDir   where each node writes its server log {@code node<N>.log} and its GC log
     *                 {@code node<N>-gc.log} (the report directory, which outlives the run: a stall in the
     *                 stable run can then be looked up in the node's own log)
     * @param extra    further {@code serve} flags
     * @throws IOException when a node exits or is not ready within {@value #READY_TIMEOUT_S} s; the message
     *                     holds the end of its log (e.g. serve's refusal of a multi-node --cluster)
     */
    public static Target start(int count, int cpu, Path workDir, Path logDir, List<String> extra)
            throws IOException, InterruptedException {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ports.add(freePort(ports));
        }
        List<URI> urls =
                ports.stream().map(p -> URI.create("http://127.0.0.1:" + p)).toList();
        String cluster = urls.stream().map(URI::toString).collect(Collectors.joining(","));
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        List<Path> gcLogs = new ArrayList<>();
        Target target = new Target(urls, procs, logs, gcLogs);
        try {
            for (int i = 0; i < count; i++) {
                List<String> cmd = new ArrayList<>();
                if (cpu >= 0 && hasTaskset()) {
                    cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
                }
                cmd.addAll(List.of(
                        home().resolve("bin/ringbase").toString(),
                        "serve",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        ports.get(i).toString(),
                        "--data-dir",
                        workDir.resolve("node" + (i + 1)).toString()));
                if (count > 1) {
                    cmd.addAll(
                            List.of("--cluster", cluster, "--self", urls.get(i).toString()));
                }
                cmd.addAll(extra);
                Path log = logDir.resolve("node" + (i + 1) + ".log");
                Path gcLog = logDir.resolve("node" + (i + 1) + "-gc.log");
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
                String opts = pb.environment().getOrDefault("RINGBASE_JAVA_OPTS", "");
                pb.environment()
                        .put(
                                "RINGBASE_JAVA_OPTS",
                                (opts.isBlank() ? "" : opts + " ") + GcLog.jvmOption(optionPath(gcLog)));
                Process p = pb.start();
                procs.add(p);
                logs.add(log);
                gcLogs.add(gcLog);
            }
            for (int i = 0; i < count; i++) {
                awaitReady(procs.get(i), logs.get(i), count);
            }
            return target;
        } catch (IOException | RuntimeException | InterruptedException e) {
            target.stop();
            throw e;
        }
    }

    /**
     * {@code file} as the node can be told it in {@code RINGBASE_JAVA_OPTS}, which {@code bin/ringbase} splits at
     * whitespace: absolute, or relative to the working directory (which the node shares) when only that
     * has no whitespace.
     *
     * @throws IOException when both have whitespace or ':'
     */
    static Path optionPath(Path file) throws IOException {
        Path abs = file.toAbsolutePath().normalize();
        Path rel = Path.of("").toAbsolutePath().relativize(abs);
        for (Path p : List.of(abs, rel)) {
            if (GcLog.fitsOption(p)) {
                return p;
            }
        }
        throw new IOException("the GC log path " + abs + " has whitespace or ':', which -Xlog in RINGBASE_JAVA_OPTS "
                + "cannot carry; choose an --out without them");
    }

    private static void awaitReady(Process p, Path log, int count) throws IOException, InterruptedException {
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.contains("Ringbase node ready at")) {
                        // keep draining stdout so the node never blocks on a full pipe. A platform thread: a
                        // virtual one blocked in this pipe read held the only carrier when bench ran on one CPU
                        // (taskset -c 1), and Jcmd's output reader then never ran: bench hung
                        Thread.ofPlatform().daemon().name("node-stdout-drain").start(() -> drain(out));
                        return line;
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = ready.get(READY_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            line = null;
        }
        if (line == null) {
            p.waitFor(2, TimeUnit.SECONDS);
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            // serve refuses bad flags with the reason first, then its usage: show the reason
            int usage = lines.indexOf(lines.stream()
                    .filter(l -> l.startsWith("Usage:"))
                    .findFirst()
                    .orElse(null));
            List<String> shown =
                    usage > 0 ? lines.subList(0, usage) : lines.subList(Math.max(0, lines.size() - 10), lines.size());
            String tail = String.join("\n", shown);
            String hint = count > 1 && tail.contains("single nodes only")
                    ? "\n--cluster " + count
                            + " needs a Ringbase with clustering; this build's 'serve' runs single nodes only."
                    : "";
            throw new IOException("node did not start ("
                    + (p.isAlive() ? "no ready line within " + READY_TIMEOUT_S + " s" : "exit code " + p.exitValue())
                    + "); end of " + log + ":\n" + tail + hint);
        }
        System.err.println("bench: " + line);
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // discard
            }
        } catch (IOException ignored) {
            // the node exited
        }
    }

    private static int freePort(List<Integer> taken) throws IOException {
        for (int i = 0; i < 20; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (!taken.contains(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
        throw new IOException("no free loopback port");
    }
}
