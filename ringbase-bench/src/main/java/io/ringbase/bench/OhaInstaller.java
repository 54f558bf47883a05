package io.ringbase.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds the load generator, oha, or installs it from crates.io with {@code cargo install} into
 * {@code bench/.cache/oha} (git-ignored). The version is pinned ({@value #VERSION}) because {@link OhaCsv}
 * reads its CSV format. (oha 1.16 does not compile without its default TLS feature, so that stays on.)
 */
public final class OhaInstaller {

    /** The oha version installed and whose output format {@link OhaCsv} reads. */
    public static final String VERSION = "1.16.0";

    private OhaInstaller() {}

    /**
     * Returns the path of an oha {@value #VERSION} binary: {@code <cache>/oha/bin/oha} if it is there, else
     * installs it there (a few minutes of compiling on first use; progress goes to stderr).
     *
     * @param cache the cache directory, e.g. {@code bench/.cache}
     * @throws IOException when cargo is missing or the install fails; the message says what to do
     */
    public static Path ensure(Path cache) throws IOException, InterruptedException {
        Path root = cache.resolve("oha");
        Path bin = root.resolve("bin/oha");
        if (Files.isExecutable(bin)) {
            return bin;
        }
        Files.createDirectories(root);
        Path log = cache.resolve("oha-install.log");
        List<String> cmd =
                List.of("cargo", "install", "oha", "--version", VERSION, "--locked", "--root", root.toString());
        System.err.println("bench: installing the load generator: " + String.join(" ", cmd)
                + " (first use; compiling takes several minutes; log: " + log + ")");
        Process p;
        try {
            p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IOException(
                    "cannot run 'cargo' to install oha " + VERSION + " from crates.io: " + e.getMessage()
                            + ". Install Rust (https://rustup.rs or apt-get install cargo) or put an oha " + VERSION
                            + " binary at " + bin,
                    e);
        }
        int rc = p.waitFor();
        if (rc != 0 || !Files.isExecutable(bin)) {
            List<String> lines = Files.readAllLines(log);
            String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
            boolean network = tail.contains("failed to download")
                    || tail.contains("Couldn't resolve")
                    || tail.contains("failed to get")
                    || tail.contains("network")
                    || tail.contains("index.crates.io");
            throw new IOException("cargo install oha " + VERSION + " failed (exit " + rc + ")"
                    + (network ? ": crates.io looks unreachable from here" : "") + ". Last lines of " + log + ":\n"
                    + tail + "\nFix the cause and rerun, or put an oha " + VERSION + " binary at " + bin);
        }
        return bin;
    }
}
