package io.ringbase.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Diagnostic commands into one running JVM: {@code jcmd <pid> <command> <args...>}, with the jcmd of the JDK
 * that runs that JVM ({@link #of}). For the nodes bench starts that is also the JDK running bench:
 * {@code bin/ringbase} finds it for {@code bench} and exports {@code JAVA_HOME} to the {@code bin/ringbase serve}
 * processes bench starts.
 */
public final class Jcmd {

    /** Longest one jcmd may take, in seconds (attaching starts the target's attach listener on first use). */
    static final int TIMEOUT_S = 60;

    private final Path jcmd;
    private final long pid;

    /**
     * @param jcmd the jcmd executable
     * @param pid  the JVM's process id
     */
    public Jcmd(Path jcmd, long pid) {
        this.jcmd = jcmd;
        this.pid = pid;
    }

    /**
     * Commands into JVM {@code pid} with the jcmd beside its {@code java} executable, or this process's
     * ({@code java.home}) when that cannot be told.
     */
    public static Jcmd of(long pid) {
        Path own = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Path jcmd = ProcessHandle.of(pid)
                .flatMap(h -> h.info().command())
                .map(java -> Path.of(java).resolveSibling("jcmd"))
                .filter(Files::isExecutable)
                .orElse(own);
        return new Jcmd(jcmd, pid);
    }

    /** The JVM's process id. */
    public long pid() {
        return pid;
    }

    /**
     * Runs {@code command} with {@code args} in the JVM and returns jcmd's output (stdout and stderr together).
     *
     * @throws IOException when jcmd cannot run, exits non-zero or takes over {@value #TIMEOUT_S} s; the message
     *                     holds its output
     */
    public String run(String command, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid), command));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return p.getInputStream().readAllBytes();
                    } catch (IOException e) {
                        return new byte[0];
                    }
                },
                r -> Thread.ofPlatform()
                        .daemon()
                        .name("jcmd-output")
                        .start(r)); // not virtual: see NodeLauncher.awaitReady
        if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("jcmd " + pid + " " + command + " did not finish within " + TIMEOUT_S + " s");
        }
        String text;
        try {
            text = new String(out.get(), StandardCharsets.UTF_8);
        } catch (ExecutionException e) {
            text = "";
        }
        if (p.exitValue() != 0) {
            throw new IOException(
                    "jcmd " + pid + " " + command + " exited with " + p.exitValue() + ": " + text.strip());
        }
        return text;
    }
}
