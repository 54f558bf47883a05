package io.ringbase.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Compiles the load generator rategen ({@code bench/rategen/rategen.c}, packed into the bench jar) with the
 * machine's C compiler into {@code bench/.cache/rategen/rategen-<hash>} (git-ignored), once per version of the
 * source: the file name holds the first 12 hex digits of the source's SHA-256.
 */
public final class RategenInstaller {

    /** Where the build puts the source in the jar (see ringbase-bench/pom.xml). */
    static final String RESOURCE = "/io/ringbase/bench/rategen/rategen.c";

    private RategenInstaller() {}

    /**
     * Returns the path of a rategen binary built from this jar's source, compiling it first if the cache lacks it
     * ({@code cc -O2}, about a second).
     *
     * @param cache the cache directory, e.g. {@code bench/.cache}
     * @throws IOException when the source is missing from the jar, {@code cc} is missing or the compile fails; the
     *                     message says what to do
     */
    public static Path ensure(Path cache) throws IOException, InterruptedException {
        byte[] source;
        try (InputStream in = RategenInstaller.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("the bench jar lacks " + RESOURCE + "; rebuild it with ./mvnw install");
            }
            source = in.readAllBytes();
        }
        String name = "rategen-" + sha256(source).substring(0, 12);
        Path dir = cache.resolve("rategen");
        Path bin = dir.resolve(name);
        if (Files.isExecutable(bin)) {
            return bin;
        }
        Files.createDirectories(dir);
        Path src = dir.resolve(name + ".c");
        Files.write(src, source);
        Path tmp = dir.resolve(name + ".tmp");
        List<String> cmd = List.of("cc", "-O2", "-o", tmp.toString(), src.toString());
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(
                    "cannot run 'cc' to compile the load generator rategen (" + e.getMessage()
                            + "). Install a C compiler (apt-get install gcc), or run with --load-generator oha",
                    e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        if (rc != 0 || !Files.isExecutable(tmp)) {
            throw new IOException(
                    "compiling rategen failed (" + String.join(" ", cmd) + ", exit " + rc + "):\n" + out.strip());
        }
        Files.move(tmp, bin, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return bin;
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
