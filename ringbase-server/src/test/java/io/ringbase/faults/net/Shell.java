package io.ringbase.faults.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs a command to completion and returns what it printed; a non-zero exit is an exception. */
public final class Shell {

    /** How long one command may take before it is killed (s). */
    static final long TIMEOUT_S = 120;

    private Shell() {}

    /** What a finished command printed (stdout and stderr together) and its exit code. */
    public record Result(int exit, String output) {}

    /**
     * Runs {@code cmd}.
     *
     * @throws IllegalStateException if it exits non-zero or runs past {@link #TIMEOUT_S}, with its output
     */
    public static String run(String... cmd) {
        Result r = tryRun(cmd);
        if (r.exit() != 0) {
            throw new IllegalStateException("'" + String.join(" ", cmd) + "' exited " + r.exit() + ": "
                    + r.output().strip());
        }
        return r.output();
    }

    /** Runs {@code cmd} whatever its exit code. */
    public static Result tryRun(String... cmd) {
        try {
            Process p =
                    new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).start();
            p.getOutputStream().close();
            // read beside the wait: a command that never closes its output must still time out
            CompletableFuture<byte[]> out = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    out.complete(p.getInputStream().readAllBytes());
                } catch (IOException e) {
                    out.completeExceptionally(e);
                }
            });
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "'" + String.join(" ", cmd) + "' did not finish in " + TIMEOUT_S + " s");
            }
            try {
                return new Result(
                        p.exitValue(), new String(out.get(TIMEOUT_S, TimeUnit.SECONDS), StandardCharsets.UTF_8));
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("'" + String.join(" ", cmd) + "' exited, its output did not end", e);
            }
        } catch (IOException e) {
            return new Result(127, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
