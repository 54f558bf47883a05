package io.ringbase.faults.cluster;

import io.ringbase.faults.net.NetworkLab;
import io.ringbase.faults.net.Shell;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One node of the fault suite's cluster: a child JVM ({@code io.ringbase.cli.Main serve}) in node
 * {@code index}'s network namespace, with its data in {@code dataDir} and its logs appended to
 * {@code <dataDir>.log}. Not thread-safe: the run's nemesis thread owns it.
 */
public final class NsNode {

    /** How long a node may take to print its ready line (s). */
    static final long READY_TIMEOUT_S = 60;
    /** The port every node listens on (each has its own address). */
    public static final int PORT = 8080;

    private final int index;
    private final String url;
    private final List<String> membershipFlags;
    private final Path dataDir;
    private final Path log;
    private final Path pidFile;
    private List<String> extraFlags;
    private Process process;
    /** Set before this node's current process is killed or stopped on purpose; one per process. */
    private AtomicBoolean exitExpected = new AtomicBoolean();

    private final List<String> unexpectedExits = Collections.synchronizedList(new ArrayList<>());
    private boolean paused;

    /**
     * @param url             the node's URL ({@code --self})
     * @param membershipFlags how it finds its cluster: {@code --cluster URL,...} for a founding node,
     *                        {@code --join URL} for one that joins, and {@code --metadata-port-offset N} if the
     *                        membership comes from the metadata log
     * @param pidFile         every started node's pid is appended here, so a later run can kill what a crashed
     *                        run left (by pid, after checking its command line)
     */
    NsNode(int index, String url, List<String> membershipFlags, Path dataDir, Path pidFile, List<String> extraFlags) {
        this.index = index;
        this.url = url;
        this.membershipFlags = List.copyOf(membershipFlags);
        this.dataDir = dataDir;
        this.log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
        this.pidFile = pidFile;
        this.extraFlags = extraFlags;
    }

    public int index() {
        return index;
    }

    public String url() {
        return url;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The serve flags of the next start, after the cluster's and the node's. */
    public List<String> extraFlags() {
        return List.copyOf(extraFlags);
    }

    /** The serve flags of the next start (the run's own, after the cluster's and the node's). */
    public void setExtraFlags(List<String> flags) {
        this.extraFlags = List.copyOf(flags);
    }

    /**
     * Every exit of this node's processes that no {@link #kill} or {@link #stop} asked for (a crash, an
     * exit on an error), each as {@code "pid P exited with code C"}, in the order seen.
     */
    public List<String> unexpectedExits() {
        synchronized (unexpectedExits) {
            return List.copyOf(unexpectedExits);
        }
    }

    /** Whether the process is running (paused counts as running). */
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public boolean isPaused() {
        return paused;
    }

    /** Starts the process; the future completes at its ready line. */
    public CompletableFuture<Void> start(long clockOffsetMs) throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("node " + index + " is running");
        }
        Files.createDirectories(dataDir);
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(NetworkLab.inNamespace(index));
        cmd.addAll(List.of(
                java,
                "-Xmx128m",
                "--enable-native-access=ALL-UNNAMED",
                "-XX:MaxDirectMemorySize=32m",
                "-Dio.netty.maxDirectMemory=67108864",
                "-XX:MaxMetaspaceSize=64m",
                "--sun-misc-unsafe-memory-access=allow",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Dio.netty.tryReflectionSetAccessible=true",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "io.ringbase.cli.Main",
                "serve"));
        cmd.addAll(membershipFlags);
        // no warm-up: the suite restarts nodes under faults and measures correctness, not a fresh node's speed
        cmd.addAll(List.of(
                "--self",
                url(),
                "--data-dir",
                dataDir.toString(),
                "--io-threads",
                "1",
                "--workers",
                "4",
                "--warm-up",
                "0s"));
        cmd.addAll(extraFlags);
        if (clockOffsetMs != 0) {
            cmd.add("--test-clock-offset-ms=" + clockOffsetMs);
        }
        Files.writeString(
                log,
                "---- start " + String.join(" ", cmd.subList(cmd.indexOf("serve"), cmd.size())) + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        process = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        paused = false;
        AtomicBoolean expected = new AtomicBoolean();
        exitExpected = expected;
        Process started = process;
        CompletableFuture<Void> unused = started.onExit().thenRun(() -> {
            if (!expected.get()) {
                unexpectedExits.add("pid " + started.pid() + " exited with code " + started.exitValue());
            }
        });
        process.getOutputStream().close();
        Files.writeString(
                pidFile,
                process.pid() + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Process p = process;
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("node-" + index + "-stdout").start(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith("Ringbase node ready")) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // the process went away
            }
            ready.completeExceptionally(new IllegalStateException("node " + index + " exited before it was ready"));
        });
        return ready.orTimeout(READY_TIMEOUT_S, TimeUnit.SECONDS);
    }

    /**
     * Starts the process where it must refuse to start (a wiped node that must not rejoin as a full
     * replica): waits until it exits and returns its exit code; the exit is an expected one.
     *
     * @throws IllegalStateException if it printed its ready line (it is then SIGKILLed), or neither exited
     *     nor became ready within {@link #READY_TIMEOUT_S}
     */
    public int startExpectingRefusal() throws IOException, InterruptedException {
        CompletableFuture<Void> ready = start(0);
        exitExpected.set(true); // a JVM takes far longer to start than this line to run
        Process p = process;
        try {
            ready.join();
        } catch (CompletionException e) {
            if (p.waitFor(30, TimeUnit.SECONDS)) {
                return p.exitValue();
            }
            kill();
            throw new IllegalStateException("node " + index + " neither became ready nor exited", e);
        }
        kill();
        throw new IllegalStateException("node " + index + " became ready where it should have refused to start");
    }

    /**
     * Deletes the node's data directory, as a lost disk would; its log (beside it) stays.
     *
     * @throws IllegalStateException if the process is running
     */
    public void wipe() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("node " + index + " is running: stop it before wiping its data");
        }
        if (!Files.exists(dataDir)) {
            return;
        }
        try (var paths = Files.walk(dataDir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** SIGKILL, then waits for the process to be gone. */
    public void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        exitExpected.set(true);
        if (paused) {
            resume(); // a stopped process dies of SIGKILL too, but be explicit
        }
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + index + " (pid " + process.pid() + ") survived SIGKILL");
        }
    }

    /** SIGTERM (graceful stop), then SIGKILL if it has not exited within 30 s. */
    public void stop() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        exitExpected.set(true);
        if (paused) {
            resume();
        }
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            kill();
        }
    }

    /** SIGSTOP: the process freezes, its sockets stay open. */
    public void pause() {
        if (isAlive() && !paused) {
            Shell.run("kill", "-STOP", Long.toString(process.pid()));
            paused = true;
        }
    }

    /** SIGCONT. */
    public void resume() {
        if (process != null && paused) {
            Shell.tryRun("kill", "-CONT", Long.toString(process.pid()));
            paused = false;
        }
    }

    /** The node's log so far (stderr of every start). */
    public String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
