package io.ringbase.node;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Ringbase node running as a child JVM ({@code io.ringbase.cli.Main serve}) on an ephemeral port,
 * for black-box tests that stop, SIGKILL and restart real processes.
 *
 * <p>The child runs the test JVM's own {@code java} binary with the test classpath (under Surefire a
 * manifest-only booter jar that references the full classpath) and a 128 MiB heap. Its stderr (the
 * logs) goes to a file beside the data directory, quoted in every failure message; its stdout is read
 * until the ready line, then drained. {@link #close()} always kills the child.
 */
final class NodeProcess implements AutoCloseable {

    static final Duration READY_DEADLINE = Duration.ofSeconds(30);
    static final Duration STOP_DEADLINE = Duration.ofSeconds(30);
    static final String HEAP = "-Xmx128m";

    private static final Pattern READY =
            Pattern.compile("Ringbase node ready at http://([^:/ ]+):(\\d+) \\(data in (.+)\\)");
    private static final AtomicInteger STARTS = new AtomicInteger();

    private final Process process;
    private final Path stderrFile;
    private final int port;
    private final List<String> stdoutAfterReady;

    private NodeProcess(Process process, Path stderrFile, int port, List<String> stdoutAfterReady) {
        this.process = process;
        this.stderrFile = stderrFile;
        this.port = port;
        this.stdoutAfterReady = stdoutAfterReady;
    }

    /**
     * Starts {@code serve --port 0 --data-dir dataDir extraFlags...} and waits for the ready line.
     *
     * @param logDir where the child's stderr file goes (the test's temp dir)
     * @throws IllegalStateException if the node exits or stays silent for {@link #READY_DEADLINE},
     *     with the child's stderr in the message; the child is killed first
     */
    static NodeProcess start(Path dataDir, Path logDir, String... extraFlags) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--data-dir", dataDir.toString()));
        args.addAll(List.of(extraFlags));
        return startServe(logDir, args);
    }

    /**
     * Starts one node of a cluster: {@code serve --cluster urls --self urls[self] --data-dir dataDir}
     * (it listens on its URL's port), and waits for the ready line.
     */
    static NodeProcess startClusterNode(Path dataDir, Path logDir, List<String> urls, int self, String... extraFlags)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(
                "serve",
                "--cluster",
                String.join(",", urls),
                "--self",
                urls.get(self),
                "--data-dir",
                dataDir.toString()));
        args.addAll(List.of(extraFlags));
        return startServe(logDir, args);
    }

    private static NodeProcess startServe(Path logDir, List<String> args) throws IOException, InterruptedException {
        Path stderr = logDir.resolve("node-" + STARTS.incrementAndGet() + ".stderr.log");
        Process process = command(args)
                .directory(logDir.toFile())
                .redirectError(stderr.toFile())
                .start();
        process.getOutputStream().close();
        CompletableFuture<String> ready = new CompletableFuture<>();
        List<String> after = Collections.synchronizedList(new ArrayList<>());
        Thread reader = Thread.ofPlatform()
                .daemon()
                .name("node-stdout-" + process.pid())
                .start(() -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line = in.readLine();
                        if (line == null) {
                            ready.completeExceptionally(new IOException("stdout closed before the ready line"));
                            return;
                        }
                        ready.complete(line);
                        for (String more = in.readLine(); more != null; more = in.readLine()) {
                            after.add(more);
                        }
                    } catch (IOException e) {
                        ready.completeExceptionally(e);
                    }
                });
        String line;
        try {
            line = ready.get(READY_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            kill(process);
            reader.join(5_000);
            throw new IllegalStateException(
                    "node did not print its ready line within " + READY_DEADLINE
                            + " ("
                            + (e instanceof TimeoutException
                                    ? "timed out"
                                    : e.getCause().getMessage())
                            + "; exit code " + exitCodeOrNone(process) + "); stderr:\n" + read(stderr),
                    e);
        }
        Matcher m = READY.matcher(line);
        if (!m.matches()) {
            kill(process);
            throw new IllegalStateException("unexpected first stdout line: '" + line + "'; stderr:\n" + read(stderr));
        }
        return new NodeProcess(process, stderr, Integer.parseInt(m.group(2)), after);
    }

    /**
     * Runs the command line {@code args} to completion in {@code workDir} and returns what it printed.
     *
     * @throws IllegalStateException if it does not exit within {@code deadline} (it is killed)
     */
    static Result run(Path workDir, Duration deadline, String... args) throws IOException, InterruptedException {
        Path out = workDir.resolve("run-" + STARTS.incrementAndGet() + ".stdout.log");
        Path err = workDir.resolve("run-" + STARTS.get() + ".stderr.log");
        Process process = command(List.of(args))
                .directory(workDir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        process.getOutputStream().close();
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            kill(process);
            throw new IllegalStateException(
                    "'" + String.join(" ", args) + "' did not exit within " + deadline + "; stderr:\n" + read(err));
        }
        return new Result(process.exitValue(), read(out), read(err));
    }

    /** What a finished command printed. */
    record Result(int exitCode, String stdout, String stderr) {}

    private static ProcessBuilder command(List<String> args) {
        return command(HEAP, args);
    }

    /**
     * The native-memory caps {@code bin/ringbase} gives a node (docs/design.md, "Memory budget"), so the
     * tests' nodes run within the same budget, and Netty's use of {@code sun.misc.Unsafe} and of
     * {@code java.nio}, allowed as there (its direct buffers then count against its own cap). Netty's leak detection stays on here.
     */
    static final List<String> MEMORY_CAPS = List.of(
            "-XX:MaxDirectMemorySize=32m",
            "-Dio.netty.maxDirectMemory=67108864",
            "-XX:MaxMetaspaceSize=64m",
            "--sun-misc-unsafe-memory-access=allow",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-Dio.netty.tryReflectionSetAccessible=true");

    /** {@code java <heap> <caps> ... io.ringbase.cli.Main args}, the way every child of these tests runs. */
    static ProcessBuilder command(String heap, List<String> args) {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("cannot tell which java binary runs the tests"));
        List<String> cmd = new ArrayList<>(List.of(java, heap, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(MEMORY_CAPS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.ringbase.cli.Main"));
        cmd.addAll(args);
        return new ProcessBuilder(cmd);
    }

    int port() {
        return port;
    }

    URI baseUri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The child's stderr so far (its logs). */
    String stderr() {
        return read(stderrFile);
    }

    /** Lines the child printed on stdout after the ready line. */
    List<String> stdoutAfterReady() {
        synchronized (stdoutAfterReady) {
            return List.copyOf(stdoutAfterReady);
        }
    }

    /** SIGKILL ({@link Process#destroyForcibly()} on Linux), then waits until the process is gone. */
    void sigkill() throws InterruptedException {
        kill(process);
    }

    /**
     * SIGTERM ({@link Process#destroy()} on Linux) and waits up to {@code deadline} for the exit.
     *
     * @return the exit code
     * @throws IllegalStateException if the node is still running after {@code deadline} (it is then
     *     killed), with its stderr
     */
    int sigterm(Duration deadline) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            kill(process);
            throw new IllegalStateException(
                    "node did not exit within " + deadline + " of SIGTERM; stderr:\n" + stderr());
        }
        return process.exitValue();
    }

    int sigterm() throws InterruptedException {
        return sigterm(STOP_DEADLINE);
    }

    @Override
    public void close() {
        try {
            kill(process);
        } catch (InterruptedException e) { // killed already; an interrupt must not be lost in try-with-resources
            Thread.currentThread().interrupt();
        }
    }

    private static void kill(Process process) throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("child " + process.pid() + " survived SIGKILL for 30 s");
        }
    }

    private static String exitCodeOrNone(Process process) {
        return process.isAlive() ? "none, still running" : Integer.toString(process.exitValue());
    }

    static String read(Path file) {
        try {
            return Files.exists(file)
                    ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
                    : "(no " + file + ")";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
