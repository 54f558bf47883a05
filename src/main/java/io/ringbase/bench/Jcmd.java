package io.ringbase.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs a diagnostic command in a running JVM with {@code jcmd <pid> <command> <args...>}. The jcmd is the one
 * of the JDK running this process ({@code java.home}), which is the JDK of the nodes: {@code bin/ringbase}
 * finds it for {@code bench} and exports {@code JAVA_HOME} to the {@code bin/ringbase serve} it starts.
 */
public final class Jcmd {

    /** Longest one jcmd may take, in seconds (attaching starts the target's attach listener on first use). */
    static final int TIMEOUT_S = 60;

    private final Path jcmd;

    /** The jcmd of the JDK running this process. */
    public Jcmd() {
        this(Path.of(System.getProperty("java.home"), "bin", "jcmd"));
    }

    /** @param jcmd the jcmd executable */
    public Jcmd(Path jcmd) {
        this.jcmd = jcmd;
    }

    /**
     * Runs {@code command} with {@code args} in the JVM {@code pid} and returns jcmd's output (stdout and
     * stderr together).
     *
     * @throws IOException when jcmd cannot run, exits non-zero or takes over {@value #TIMEOUT_S} s; the message
     *                     holds its output
     */
    public String run(long pid, String command, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid), command));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                return new byte[0];
            }
        }, r -> Thread.ofVirtual().start(r));
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
            throw new IOException("jcmd " + pid + " " + command + " exited with " + p.exitValue() + ": " + text.strip());
        }
        return text;
    }
}
